#include "cpuft/io/st_dtype.h"

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// In the order of the Rust `Dtype` enum of huggingface/safetensors (tensor.rs), whose derived Ord
// the writer uses to sort tensors (larger rank first); checked against safetensors 0.8 (the
// F4/F6 places are not: torch cannot make those tensors).
const struct {
  const char* name;
  StDtypeInfo info;
} kDtypes[] = {
    {"BOOL", {StDtype::BOOL, 8, 0}},          {"F4", {StDtype::OTHER, 4, 1}},
    {"F6_E2M3", {StDtype::OTHER, 6, 2}},      {"F6_E3M2", {StDtype::OTHER, 6, 3}},
    {"U8", {StDtype::U8, 8, 4}},              {"I8", {StDtype::I8, 8, 5}},
    {"F8_E5M2", {StDtype::OTHER, 8, 6}},      {"F8_E4M3", {StDtype::OTHER, 8, 7}},
    {"F8_E8M0", {StDtype::OTHER, 8, 8}},      {"F8_E4M3FNUZ", {StDtype::OTHER, 8, 9}},
    {"F8_E5M2FNUZ", {StDtype::OTHER, 8, 10}}, {"I16", {StDtype::I16, 16, 11}},
    {"U16", {StDtype::U16, 16, 12}},          {"F16", {StDtype::F16, 16, 13}},
    {"BF16", {StDtype::BF16, 16, 14}},        {"I32", {StDtype::I32, 32, 15}},
    {"U32", {StDtype::U32, 32, 16}},          {"F32", {StDtype::F32, 32, 17}},
    {"C64", {StDtype::OTHER, 64, 18}},        {"F64", {StDtype::F64, 64, 19}},
    {"I64", {StDtype::I64, 64, 20}},          {"U64", {StDtype::U64, 64, 21}},
};

}  // namespace

bool lookup_st_dtype(const std::string& name, StDtypeInfo* info) {
  for (const auto& d : kDtypes) {
    if (name == d.name) {
      *info = d.info;
      return true;
    }
  }
  return false;
}

const char* st_dtype_name(StDtype dtype) {
  switch (dtype) {
    case StDtype::F32: return "F32";
    case StDtype::BF16: return "BF16";
    case StDtype::I64: return "I64";
    case StDtype::I8: return "I8";
    default: fail("safetensors writer: dtype ", static_cast<int>(dtype), " is not one cpuft writes (F32, BF16, I64, I8)");
  }
}

const char* st_dtype_list() {
  return "BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, F4, F6_E2M3, F6_E3M2, I16, U16, "
         "F16, BF16, I32, U32, F32, C64, F64, I64, U64";
}

}  // namespace cpuft
