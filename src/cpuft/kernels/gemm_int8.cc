// oneDNN u8 x s8 -> s32 matmul primitives, cached by shape (see gemm_int8.h).
#include "cpuft/kernels/gemm_int8.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <dnnl.hpp>

#include "cpuft/cpu/onednn_info.h"
#include "cpuft/util/error.h"

namespace cpuft {
namespace {

using dt = dnnl::memory::data_type;
using Shape = std::tuple<int64_t, int64_t, int64_t>;  // M, N, K

struct Int8Primitive {
  dnnl::matmul prim;
  dnnl::memory::desc a, w, c;
  std::string impl;
};

struct Int8Runtime {
  dnnl::engine engine;
  dnnl::stream stream;
  std::mutex mu;
  std::map<Shape, std::unique_ptr<Int8Primitive>> cache;
  int64_t created = 0;
};

// The cache holds at most this many shapes and starts again when full (a batch of another row count
// builds one primitive per layer shape; the last batch of an evaluation is usually smaller).
constexpr size_t kInt8CacheCapacity = 256;

Int8Runtime& runtime() {
  static Int8Runtime* r = [] {
    onednn_prepare();  // before the first primitive (AMX permission)
    auto* rt = new Int8Runtime;  // never destroyed: products may run during static destruction
    rt->engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
    rt->stream = dnnl::stream(rt->engine);
    return rt;
  }();
  return *r;
}

std::unique_ptr<Int8Primitive> build(int64_t M, int64_t N, int64_t K) {
  auto p = std::make_unique<Int8Primitive>();
  p->a = dnnl::memory::desc({M, K}, dt::u8, {K, 1});
  p->w = dnnl::memory::desc({K, N}, dt::s8, {1, K});  // [N, K] row-major read as [K, N]
  p->c = dnnl::memory::desc({M, N}, dt::s32, {N, 1});
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a, p->w, p->c), runtime().engine);
    p->impl = pd.impl_info_str();
    p->prim = dnnl::matmul(pd);
  } catch (const dnnl::error& e) {
    fail("oneDNN cannot build a u8 x s8 -> s32 matmul for M=", M, " N=", N, " K=", K, ": ", e.what());
  }
  return p;
}

const Int8Primitive& find(int64_t M, int64_t N, int64_t K) {
  Int8Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  const Shape key{M, N, K};
  auto it = rt.cache.find(key);
  if (it == rt.cache.end()) {
    if (rt.cache.size() >= kInt8CacheCapacity) rt.cache.clear();
    it = rt.cache.emplace(key, build(M, N, K)).first;
    ++rt.created;
  }
  return *it->second;
}

}  // namespace

void matmul_u8s8s32(int64_t M, int64_t N, int64_t K, const uint8_t* a, const int8_t* w, void* c) {
  if (M <= 0 || N <= 0 || K <= 0) fail("int8 matmul: sizes M=", M, " N=", N, " K=", K, ", expected all > 0");
  if (!a || !w || !c) fail("int8 matmul: a null operand pointer");
  const Int8Primitive& p = find(M, N, K);
  Int8Runtime& rt = runtime();
  dnnl::memory am(p.a, rt.engine, const_cast<uint8_t*>(a));
  dnnl::memory wm(p.w, rt.engine, const_cast<int8_t*>(w));
  dnnl::memory cm(p.c, rt.engine, c);
  p.prim.execute(rt.stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, cm}});
  rt.stream.wait();
}

const std::string& gemm_int8_impl() {
  static const std::string impl = find(128, 256, 256).impl;  // a layer-sized product
  return impl;
}

std::string int8_vnni_kind(const std::string& isa, const std::string& impl) {
  if (impl.find("amx") != std::string::npos) return "AMX-INT8";
  if (isa == "avx512_core_vnni" || isa == "avx512_core_bf16" || isa == "avx512_core_amx") return "AVX512_VNNI";
  if (isa == "avx2_vnni") return "AVX-VNNI";
  return "";
}

int int8_activation_levels() {
  static const int levels = int8_vnni_kind(onednn_isa(), gemm_int8_impl()).empty() ? 127 : 255;
  return levels;
}

std::string describe_int8_matmul() {
  const std::string kind = int8_vnni_kind(onednn_isa(), gemm_int8_impl());
  if (!kind.empty())
    return "u8 x s8 -> s32 matmul on " + kind + " (oneDNN " + gemm_int8_impl() + "), 8-bit activations";
  return "u8 x s8 -> s32 matmul without VNNI (oneDNN " + gemm_int8_impl() + ", isa " + onednn_isa() +
         "): its fallback, with 7-bit activations (0..127) so that its 16-bit sums cannot saturate";
}

int64_t gemm_int8_primitives_created() {
  Int8Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  return rt.created;
}

}  // namespace cpuft
