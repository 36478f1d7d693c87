#include "cpuft/io/safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "common/temp_dir.h"
#include "io_test_util.h"

using cpuft::SafetensorsReader;
using cpuft::StDtype;
using cpuft::StTensorOut;
using io_test::craft;
using io_test::expect_error;
using io_test::fixture;

namespace {

// Rewrites every tensor of `src` with the C++ writer and returns the bytes written.
std::string rewrite(const SafetensorsReader& src, const std::string& out) {
  std::vector<std::vector<float>> f32;
  std::vector<std::vector<uint16_t>> bf16;
  std::vector<std::vector<int64_t>> i64;
  f32.reserve(src.tensors().size()), bf16.reserve(src.tensors().size()), i64.reserve(src.tensors().size());
  std::vector<StTensorOut> outs;
  for (const auto& t : src.tensors()) {
    StTensorOut o{t.name, t.shape};
    size_t n = static_cast<size_t>(t.numel());
    size_t room = std::max<size_t>(n, 1);  // a non-null pointer also for empty tensors: it carries the dtype
    if (t.dtype == StDtype::kF32) {
      f32.emplace_back(room);
      src.read_f32(t, f32.back().data());
      o.f32 = f32.back().data();
    } else if (t.dtype == StDtype::kBf16) {
      bf16.emplace_back(room);
      std::memcpy(bf16.back().data(), src.data(t), n * 2);
      o.bf16 = bf16.back().data();
    } else {
      i64.emplace_back(room);
      std::memcpy(i64.back().data(), src.data(t), n * 8);
      o.i64 = i64.back().data();
    }
    outs.push_back(o);
  }
  cpuft::write_safetensors(out, outs, src.metadata());
  return cpuft::read_file(out);
}

const char* kGood = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

}  // namespace

TEST(Safetensors, RoundTripF32Bf16I64ScalarAndEmpty) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  std::vector<float> w = {1.f, -2.5f, 3.25f, 0.f, 1e-38f, -std::numeric_limits<float>::infinity()};
  std::vector<uint16_t> h = {0x3f80, 0xbf00};
  std::vector<int64_t> ids = {-1, 0, 1LL << 40};
  float scalar = 42.f;
  std::vector<StTensorOut> outs = {{"w", {2, 3}, w.data()},     {"h", {2}, nullptr, h.data()},
                                   {"ids", {3}, nullptr, nullptr, ids.data()},
                                   {"s", {}, &scalar},          {"empty", {0, 5}, w.data()}};
  cpuft::write_safetensors(dir + "/m.safetensors", outs);
  SafetensorsReader r(dir + "/m.safetensors");
  ASSERT_EQ(r.tensors().size(), 5u);
  EXPECT_EQ(r.metadata().at("format"), "pt");
  EXPECT_EQ(r.read_f32("w"), w);
  EXPECT_EQ(r.read_f32("h"), (std::vector<float>{1.f, -0.5f}));
  EXPECT_EQ(r.read_f32("s"), std::vector<float>{42.f});
  EXPECT_TRUE(r.read_f32("empty").empty());
  EXPECT_EQ(r.find("w")->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.find("s")->numel(), 1);
  const auto* t = r.find("ids");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype, StDtype::kI64);
  int64_t got[3];
  std::memcpy(got, r.data(*t), sizeof got);
  EXPECT_EQ(std::vector<int64_t>(got, got + 3), ids);
  EXPECT_EQ(r.find("missing"), nullptr);
  // The reference layout: I64 first, then F32 by name, then BF16; data in that order from 0.
  EXPECT_EQ(r.tensors()[0].name, "ids");
  EXPECT_EQ(r.tensors()[1].name, "empty");
  EXPECT_EQ(r.tensors().back().name, "h");
  std::string bytes = cpuft::read_file(dir + "/m.safetensors");
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  const std::string start = R"({"__metadata__":{"format":"pt"},"ids":{"dtype":"I64","shape":[3],"data_offsets":[0,24]},)";
  EXPECT_EQ(bytes.substr(8, start.size()), start);
}

// A field of /proc/self/status ("VmRSS", "VmHWM"), in bytes; 0 if missing.
size_t status_bytes(const std::string& field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  size_t kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, (field + ":").c_str(), field.size() + 1) == 0)
      kb = std::strtoull(line + field.size() + 1, nullptr, 10);
  std::fclose(f);
  return kb * 1024;
}

// A model loads in about its own size: a tensor read leaves its copy, not also the file's pages, in
// this process's memory; read again, it gives the same values.
TEST(Safetensors, ReadTensorsLeaveNoFilePagesResident) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  std::vector<float> w(size_t{8} << 20);  // 32 MiB
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 1000) - 500.f;
  cpuft::write_safetensors(dir + "/big.safetensors", {{"w", {static_cast<int64_t>(w.size())}, w.data()}});
  SafetensorsReader r(dir + "/big.safetensors");
  std::vector<float> out(w.size(), 1.f);  // its pages resident before the read
  const size_t before = status_bytes("VmRSS");
  ASSERT_GT(before, 0u) << "no VmRSS in /proc/self/status";
  r.read_f32(*r.find("w"), out.data());
  const size_t after = status_bytes("VmRSS");
  const size_t grown = after - std::min(before, after);
  EXPECT_EQ(out, w);
  EXPECT_EQ(r.read_f32("w"), w);
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer's own memory moves the count
  EXPECT_LT(grown, size_t{8} << 20) << "the file's 32 MiB stayed mapped in: " << grown << " bytes more";
#else
  (void)grown;
#endif
}

// The writer streams the tensors into the file: the process never holds a copy of the file (an
// optimizer state, twice the model, is written while training holds everything else).
TEST(Safetensors, WriterHoldsNoCopyOfTheFile) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  std::vector<float> w(size_t{8} << 20, 0.5f);  // 32 MiB, resident
  std::FILE* reset = std::fopen("/proc/self/clear_refs", "w");  // "5" resets the peak (VmHWM) to now
  const bool was_reset = reset && std::fputs("5", reset) >= 0;
  if ((reset && std::fclose(reset) != 0) || !was_reset) GTEST_SKIP() << "cannot reset the peak RSS here";
  const size_t before = status_bytes("VmRSS");
  cpuft::write_safetensors(dir + "/w.safetensors", {{"w", {static_cast<int64_t>(w.size())}, w.data()}});
  const size_t peak = status_bytes("VmHWM");
  EXPECT_EQ(SafetensorsReader(dir + "/w.safetensors").read_f32("w"), w);
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer's own memory moves the count
  ASSERT_GT(before, 0u);
  EXPECT_LT(peak - std::min(peak, before), size_t{8} << 20) << "the peak grew by " << peak - before << " bytes";
#else
  (void)peak;
#endif
}

// Quantized models store their weights as I8 (written last, after the float tensors, as the
// reference writer orders I8 below F32 and BF16).
TEST(Safetensors, WritesI8) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  std::vector<int8_t> q = {-128, -1, 0, 1, 127, 5};
  std::vector<float> s = {0.5f, 2.f};
  std::vector<StTensorOut> outs(2);
  outs[0].name = "w", outs[0].shape = {2, 3}, outs[0].i8 = q.data();
  outs[1].name = "w_scale", outs[1].shape = {2}, outs[1].f32 = s.data();
  cpuft::write_safetensors(dir + "/q.safetensors", outs);
  SafetensorsReader r(dir + "/q.safetensors");
  const auto* t = r.find("w");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype, StDtype::kI8);
  EXPECT_EQ(t->dtype_name, "I8");
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<int8_t>(reinterpret_cast<const int8_t*>(r.data(*t)),
                                reinterpret_cast<const int8_t*>(r.data(*t)) + 6),
            q);
  EXPECT_EQ(r.tensors().back().name, "w");
  EXPECT_EQ(r.read_f32("w_scale"), s);
  io_test::expect_error([&] { r.read_f32("w"); }, {"'w'", "I8", "expected a floating-point dtype"});
}

TEST(Safetensors, ReadsTransformersFiles) {
  SafetensorsReader d(fixture("distilbert_qa/model.safetensors"));
  EXPECT_EQ(d.tensors().size(), 38u);  // 4 embedding + 2 layers x 16 + qa_outputs weight and bias
  EXPECT_EQ(d.metadata().at("format"), "pt");
  ASSERT_NE(d.find("distilbert.embeddings.word_embeddings.weight"), nullptr);
  EXPECT_EQ(d.find("distilbert.embeddings.word_embeddings.weight")->shape, (std::vector<int64_t>{58, 32}));
  EXPECT_EQ(d.find("distilbert.transformer.layer.1.ffn.lin1.weight")->shape, (std::vector<int64_t>{48, 32}));
  EXPECT_EQ(d.find("qa_outputs.weight")->shape, (std::vector<int64_t>{2, 32}));
  std::vector<float> gamma = d.read_f32("distilbert.embeddings.LayerNorm.weight");
  EXPECT_EQ(gamma, std::vector<float>(32, 1.f));  // LayerNorm weights start at one

  SafetensorsReader b(fixture("bert_qa/model.safetensors"));
  EXPECT_EQ(b.tensors().size(), 39u);
  EXPECT_EQ(b.find("bert.embeddings.token_type_embeddings.weight")->shape, (std::vector<int64_t>{2, 32}));

  SafetensorsReader m(fixture("mixed.safetensors"));
  EXPECT_EQ(m.read_f32("layer.2.w"),
            (std::vector<float>{1.5f, -2.25f, 1e-30f, std::numeric_limits<float>::infinity()}));
  EXPECT_EQ(m.read_f32("half.bf16"), (std::vector<float>{1.f, -0.5f, 3.140625f}));
  EXPECT_EQ(m.find("empty")->numel(), 0);
  int64_t step;
  std::memcpy(&step, m.data(*m.find("step")), 8);
  EXPECT_EQ(step, 7);
  EXPECT_TRUE(m.find("step")->shape.empty());
}

// The C++ writer reproduces the reference writer's files byte for byte.
TEST(Safetensors, WriterBytesEqualTransformersFiles) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  for (const char* rel : {"distilbert_qa/model.safetensors", "bert_qa/model.safetensors",
                          "bert_legacy/model.safetensors", "bert_bare/model.safetensors", "mixed.safetensors"}) {
    SafetensorsReader src(fixture(rel));
    std::string ours = rewrite(src, dir + "/out.safetensors");
    std::string theirs = cpuft::read_file(fixture(rel));
    EXPECT_EQ(ours.size(), theirs.size()) << rel;
    EXPECT_TRUE(ours == theirs) << rel << ": first difference at byte "
                                << std::mismatch(ours.begin(), ours.end(), theirs.begin()).first - ours.begin();
  }
}

TEST(Safetensors, ConvertsF16AndF64) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  const uint16_t half[] = {0x3c00, 0xc000, 0x0001, 0x7bff, 0x7c00, 0x8000, 0x0400};
  const double dbl[] = {0.1, -1e300};
  std::string data(reinterpret_cast<const char*>(half), sizeof half);
  data += std::string(reinterpret_cast<const char*>(dbl), sizeof dbl);
  craft(dir + "/h.safetensors",
        R"({"h":{"dtype":"F16","shape":[7],"data_offsets":[0,14]},"d":{"dtype":"F64","shape":[2],"data_offsets":[14,30]}})",
        data);
  SafetensorsReader r(dir + "/h.safetensors");
  std::vector<float> h = r.read_f32("h");
  EXPECT_EQ(h[0], 1.f);
  EXPECT_EQ(h[1], -2.f);
  EXPECT_EQ(h[2], std::ldexp(1.f, -24));  // smallest subnormal
  EXPECT_EQ(h[3], 65504.f);
  EXPECT_EQ(h[4], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(h[5]) && h[5] == 0.f);
  EXPECT_EQ(h[6], std::ldexp(1.f, -14));  // smallest normal
  std::vector<float> d = r.read_f32("d");
  EXPECT_EQ(d[0], 0.1f);
  EXPECT_EQ(d[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(r.metadata().empty());
}

TEST(Safetensors, ReadsMetadataMap) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  craft(dir + "/m.safetensors", R"({"__metadata__":{"format":"pt","b":"2"},"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})",
        std::string(8, '\1'));
  SafetensorsReader r(dir + "/m.safetensors");
  EXPECT_EQ(r.metadata().size(), 2u);
  EXPECT_EQ(r.metadata().at("b"), "2");
  expect_error([&] { r.read_f32("a"); }, {"m.safetensors", "tensor 'a' has dtype I32", "expected a floating-point"});
}

struct BadFile {
  const char* what;
  std::string header;
  std::string data;
  std::vector<std::string> pieces;
  uint64_t declared = UINT64_MAX;
};

TEST(Safetensors, RejectsBadFiles) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  const std::string t = R"("dtype":"F32","shape":[2],"data_offsets":)";
  std::vector<BadFile> cases = {
      {"header over 100 MB", "{}", "", {"header length 100000001 exceeds the limit of 100000000"}, 100000001},
      {"header past end", kGood, std::string(8, 0), {"header length 1000 runs past the end of the", "-byte file"}, 1000},
      {"not an object", R"(["a"])", "", {"header must be a JSON object starting with '{'", "0x5b"}},
      {"leading space", std::string(" ") + kGood, std::string(8, 0), {"starting with '{'", "0x20"}},
      {"invalid JSON", R"({"a":{"dtype":"F32",)", "", {"header: not valid JSON", "syntax error"}},
      {"trailing garbage", std::string(kGood) + "x", std::string(8, 0), {"header: not valid JSON"}},
      {"duplicate names", "{\"a\":{" + t + "[0,8]},\"a\":{" + t + "[8,16]}}", std::string(16, 0),
       {"duplicate key 'a'"}},
      {"unknown dtype", R"({"a":{"dtype":"F31","shape":[2],"data_offsets":[0,8]}})", std::string(8, 0),
       {"tensor 'a': dtype \"F31\" is not a safetensors dtype; expected one of BOOL, U8"}},
      {"dtype not a string", R"({"a":{"dtype":3,"shape":[2],"data_offsets":[0,8]}})", std::string(8, 0),
       {"tensor 'a': dtype is 3; expected a string"}},
      {"size mismatch", R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, 0),
       {"tensor 'a': data_offsets [0,8] hold 8 bytes; shape [3] of F32 needs 12 bytes"}},
      {"numel overflow", R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
       std::string(8, 0), {"needs more than 2^64 bits"}},
      {"negative dimension", R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", std::string(8, 0),
       {"shape [-2] holds -2; expected non-negative integers"}},
      {"missing field", R"({"a":{"dtype":"F32","data_offsets":[0,8]}})", std::string(8, 0),
       {"tensor 'a': missing \"shape\""}},
      {"offsets not a pair", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", std::string(8, 0),
       {"data_offsets is [0]; expected [BEGIN, END]"}},
      {"negative offset", R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[-1,-1]}})", "",
       {"data_offsets holds -1; expected non-negative integers"}},
      {"end before begin", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", std::string(8, 0),
       {"data_offsets [8,0] end before they begin"}},
      {"out of range", "{\"a\":{" + t + "[0,8]},\"b\":{" + t + "[8,16]}}", std::string(12, 0),
       {"tensor 'b': data_offsets [8,16] run past the data buffer of 12 bytes"}},
      {"overlap", "{\"a\":{" + t + "[0,8]},\"b\":{" + t + "[4,12]}}", std::string(12, 0),
       {"tensor 'b': data_offsets [4,12] overlap previous tensor 'a' ending at 8"}},
      {"hole", "{\"a\":{" + t + "[0,8]},\"b\":{" + t + "[12,20]}}", std::string(20, 0),
       {"tensor 'b': data_offsets [12,20] leave a hole of 4 bytes after previous tensor 'a' ending at 8"}},
      {"hole at start", "{\"a\":{" + t + "[4,12]}}", std::string(12, 0),
       {"tensor 'a': data_offsets [4,12] leave a hole of 4 bytes after the start of the data buffer"}},
      {"trailing bytes", kGood, std::string(10, 0), {"data buffer is 10 bytes but the tensors cover only 8"}},
      {"metadata not an object", R"({"__metadata__":"pt"})", "", {"__metadata__ is \"pt\"; expected a string-to-string map"}},
      {"metadata value not a string", R"({"__metadata__":{"format":1}})", "",
       {"__metadata__.format is 1; expected a string"}},
      {"entry not an object", R"({"a":[1]})", "", {"tensor 'a': entry is [1]; expected an object"}},
      {"deep shape", "{\"a\":{\"dtype\":\"F32\",\"shape\":" + std::string(100000, '[') + std::string(100000, ']') + "}}",
       "", {"header: nested deeper than 64 levels at byte 91 (line 1, column 91)"}},
      {"deep metadata", "{\"__metadata__\":" + std::string(70, '{') + std::string(70, '}') + "}", "",
       {"header: nested deeper than 64 levels"}},
      {"long name", "{\"" + std::string(100000, 'n') + "\":[1]}", "",
       {"tensor '" + std::string(80, 'n') + "...': entry is [1]; expected an object"}},
  };
  for (const BadFile& c : cases) {
    SCOPED_TRACE(c.what);
    std::string path = dir + "/bad.safetensors";
    craft(path, c.header, c.data, c.declared);
    std::vector<std::string> pieces = c.pieces;
    pieces.push_back(path);
    expect_error([&] { SafetensorsReader r(path); }, pieces);
  }
}

TEST(Safetensors, RejectsShortAndMissingFiles) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  expect_error([&] { SafetensorsReader r(dir + "/none.safetensors"); }, {dir + "/none.safetensors: missing, expected a regular file"});
  cpuft::write_file_atomic(dir + "/short.safetensors", "abc");
  expect_error([&] { SafetensorsReader r(dir + "/short.safetensors"); },
               {"short.safetensors: file is 3 bytes; a safetensors file starts with an 8-byte header length"});
  craft(dir + "/empty_header.safetensors", "", "");
  expect_error([&] { SafetensorsReader r(dir + "/empty_header.safetensors"); }, {"found an empty header"});
  expect_error([&] { SafetensorsReader r(dir); }, {dir + ": is a directory, expected a regular file"});
  ASSERT_EQ(::mkfifo((dir + "/fifo.safetensors").c_str(), 0600), 0);  // must not block the open
  expect_error([&] { SafetensorsReader r(dir + "/fifo.safetensors"); }, {"fifo.safetensors: is a FIFO, expected a regular file"});
}

TEST(Safetensors, WriterRejectsBadTensors) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  float x[2] = {1, 2};
  std::string path = dir + "/w.safetensors";
  expect_error([&] { cpuft::write_safetensors(path, {{"a", {2}, x}, {"a", {2}, x}}); },
               {path, "tensor 'a' given twice"});
  expect_error([&] { cpuft::write_safetensors(path, {{"a", {2}}}); },
               {"tensor 'a': 0 data pointers set; expected exactly one"});
  expect_error([&] { cpuft::write_safetensors(path, {{"a", {-2}, x}}); }, {"tensor 'a': dimension -2; expected >= 0"});
  expect_error([&] { cpuft::write_safetensors(path, {{"__metadata__", {2}, x}}); },
               {"cannot write a tensor named '__metadata__'"});
  EXPECT_NE(::access(path.c_str(), F_OK), 0);  // nothing half-written left behind
}

TEST(Safetensors, WriterWithoutMetadataOmitsIt) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  float x = 1;
  cpuft::write_safetensors(dir + "/w.safetensors", {{"x", {1}, &x}}, {});
  std::string bytes = cpuft::read_file(dir + "/w.safetensors");
  EXPECT_EQ(bytes.substr(8, 56), R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}  )");
  EXPECT_TRUE(SafetensorsReader(dir + "/w.safetensors").metadata().empty());
}
