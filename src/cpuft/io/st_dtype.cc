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
    {"BOOL", {StDtype::kBool, 8, 0}},          {"F4", {StDtype::kOther, 4, 1}},
    {"F6_E2M3", {StDtype::kOther, 6, 2}},      {"F6_E3M2", {StDtype::kOther, 6, 3}},
    {"U8", {StDtype::kU8, 8, 4}},              {"I8", {StDtype::kI8, 8, 5}},
    {"F8_E5M2", {StDtype::kOther, 8, 6}},      {"F8_E4M3", {StDtype::kOther, 8, 7}},
    {"F8_E8M0", {StDtype::kOther, 8, 8}},      {"F8_E4M3FNUZ", {StDtype::kOther, 8, 9}},
    {"F8_E5M2FNUZ", {StDtype::kOther, 8, 10}}, {"I16", {StDtype::kI16, 16, 11}},
    {"U16", {StDtype::kU16, 16, 12}},          {"F16", {StDtype::kF16, 16, 13}},
    {"BF16", {StDtype::kBf16, 16, 14}},        {"I32", {StDtype::kI32, 32, 15}},
    {"U32", {StDtype::kU32, 32, 16}},          {"F32", {StDtype::kF32, 32, 17}},
    {"C64", {StDtype::kOther, 64, 18}},        {"F64", {StDtype::kF64, 64, 19}},
    {"I64", {StDtype::kI64, 64, 20}},          {"U64", {StDtype::kU64, 64, 21}},
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
    case StDtype::kF32: return "F32";
    case StDtype::kBf16: return "BF16";
    case StDtype::kI64: return "I64";
    case StDtype::kI8: return "I8";
    default: fail("safetensors writer: dtype ", static_cast<int>(dtype), " is not one cpuft writes (F32, BF16, I64, I8)");
  }
}

const char* st_dtype_list() {
  return "BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, F4, F6_E2M3, F6_E3M2, I16, U16, "
         "F16, BF16, I32, U32, F32, C64, F64, I64, U64";
}

}  // namespace cpuft
