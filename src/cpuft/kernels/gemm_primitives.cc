#include "cpuft/kernels/gemm_primitives.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <dnnl.hpp>

#include "cpuft/cpu/onednn_info.h"
#include "cpuft/util/aligned_vector.h"

namespace cpuft::gemm_detail {

class Primitive {
 public:
  dnnl::matmul prim;
  dnnl::memory::desc a, b, c, bias, scratchpad;
  std::string impl;  // oneDNN's implementation name, e.g. "brg:avx512_core_amx_bf16"
};

namespace {

using dt = dnnl::memory::data_type;

struct Runtime {
  dnnl::engine engine;
  dnnl::stream stream;
  // One scratchpad for every primitive (user mode): the library mode may give each cached primitive
  // its own, so that memory would grow with the number of shapes. Grown to the largest need; safe
  // because products run one at a time (find_primitive).
  AlignedVector<uint8_t> scratchpad;
};

Runtime& runtime() {
  static Runtime* r = [] {
    onednn_prepare();  // must precede the first primitive: it may raise oneDNN's ISA to AMX
    auto* rt = new Runtime;
    rt->engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
    rt->stream = dnnl::stream(rt->engine);
    return rt;
  }();
  return *r;
}

dt to_dnnl(DType t) { return t == DType::kBf16 ? dt::bf16 : dt::f32; }

// A [rows, cols] matrix per (b, h) as a oneDNN descriptor with one batch dimension per B or H
// above 1 (a size-1 dimension would need a made-up stride). `trans` means the stored matrix is
// [cols, rows] row-major, read transposed.
dnnl::memory::desc matrix_desc(const ProductShape& s, int64_t rows, int64_t cols, DType type,
                               int64_t row, bool trans, int64_t batch, int64_t head) {
  dnnl::memory::dims dims, strides;
  if (s.B > 1) dims.push_back(s.B), strides.push_back(batch);
  if (s.H > 1) dims.push_back(s.H), strides.push_back(head);
  dims.push_back(rows), dims.push_back(cols);
  strides.push_back(trans ? 1 : row), strides.push_back(trans ? row : 1);
  return dnnl::memory::desc(dims, to_dnnl(type), strides);
}

struct Key {
  std::string bytes;
  bool operator==(const Key& o) const { return bytes == o.bytes; }
};
struct KeyHash {
  size_t operator()(const Key& k) const { return std::hash<std::string>()(k.bytes); }
};

// The key is the shape's fields laid end to end (copied one by one, so padding never enters).
Key make_key(const ProductShape& s) {
  Key k;
  auto put = [&k](const auto& v) { k.bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(s.B), put(s.H), put(s.M), put(s.N), put(s.K);
  put(s.a_type), put(s.b_type), put(s.c_type);
  put(s.a_row), put(s.a_batch), put(s.a_head), put(s.a_trans);
  put(s.b_row), put(s.b_batch), put(s.b_head), put(s.b_trans);
  put(s.c_row), put(s.c_batch), put(s.c_head);
  put(s.alpha), put(s.bias), put(s.accumulate), put(s.b_blocked);
  return k;
}

// `d` as a PairBlockLayout when it is one (blocked, pairs of rows innermost, no offset); nullopt otherwise.
std::optional<PairBlockLayout> pair_blocks_of(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& m = d.data;
  if (m.ndims != 2 || m.format_kind != dnnl_blocked || m.offset0 != 0 || m.data_type != dnnl_bf16) return std::nullopt;
  const dnnl_blocking_desc_t& b = m.format_desc.blocking;
  if (b.inner_nblks != 3 || b.inner_idxs[0] != 0 || b.inner_idxs[1] != 1 || b.inner_idxs[2] != 0 ||
      b.inner_blks[2] != 2)
    return std::nullopt;
  PairBlockLayout l;
  l.row_block = b.inner_blks[0] * 2, l.col_block = b.inner_blks[1];
  l.row_block_stride = b.strides[0], l.col_block_stride = b.strides[1];
  l.padded_rows = m.padded_dims[0], l.padded_cols = m.padded_dims[1];
  l.bytes = d.get_size();
  // The blocks must tile the padded operand without overlap, as a dense layout of whole blocks does.
  const int64_t block = l.row_block * l.col_block, row_blocks = l.padded_rows / l.row_block,
                col_blocks = l.padded_cols / l.col_block;
  const bool rows_outer = l.row_block_stride == col_blocks * block && l.col_block_stride == block;
  const bool cols_outer = l.col_block_stride == row_blocks * block && l.row_block_stride == block;
  if (!(rows_outer || cols_outer) || l.bytes != static_cast<size_t>(row_blocks * col_blocks * block) * 2)
    return std::nullopt;
  return l;
}

// The layout oneDNN's bf16 product picks for a [K, N] B given the choice (format_tag::any), asked with
// a 64-row A, with its descriptor; none where that product is not native or the layout is not pairs of
// rows in blocks (the only one cpuft writes: then the products read row-major weights). Cached per (K, N)
// and handed out by value: the weight gradients ask with the token count, which varies from batch to batch
// under dynamic padding, so the cache starts again past kCacheCapacity, as the primitives' does.
struct BlockedB {
  dnnl::memory::desc desc;
  std::optional<PairBlockLayout> layout;
  PairBlockLayout stand_in;  // BA16a64b2a's, for set_pair_blocks_everywhere
};

struct BlockedBCache {
  std::mutex mu;
  std::unordered_map<std::string, BlockedB> map;
};

BlockedBCache& blocked_b_cache() {
  static auto* c = new BlockedBCache;  // never destroyed, as the primitives' cache
  return *c;
}

BlockedB blocked_b(int64_t K, int64_t N) {
  BlockedBCache& c = blocked_b_cache();
  std::string key = std::to_string(K) + "x" + std::to_string(N);
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.map.find(key);
  if (it != c.map.end()) return it->second;
  if (static_cast<int64_t>(c.map.size()) >= kCacheCapacity) c.map.clear();
  BlockedB blocked;
  blocked.stand_in = *pair_blocks_of(dnnl::memory::desc({K, N}, dt::bf16, dnnl::memory::format_tag::BA16a64b2a));
  try {
    const dnnl::memory::desc a({64, K}, dt::bf16, dnnl::memory::format_tag::ab);
    const dnnl::memory::desc b({K, N}, dt::bf16, dnnl::memory::format_tag::any);
    const dnnl::memory::desc c({64, N}, dt::f32, dnnl::memory::format_tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), runtime().engine);
    if (std::strncmp(pd.impl_info_str(), "ref", 3) != 0) {
      blocked.layout = pair_blocks_of(pd.weights_desc());
      if (blocked.layout) blocked.desc = pd.weights_desc();
    }
  } catch (const dnnl::error&) {
  }
  return c.map.emplace(std::move(key), std::move(blocked)).first->second;
}

std::unique_ptr<Primitive> build(const ProductShape& s) {
  auto p = std::make_unique<Primitive>();
  p->a = matrix_desc(s, s.M, s.K, s.a_type, s.a_row, s.a_trans, s.a_batch, s.a_head);
  p->b = s.b_blocked ? blocked_b(s.K, s.N).desc
                     : matrix_desc(s, s.K, s.N, s.b_type, s.b_row, s.b_trans, s.b_batch, s.b_head);
  if (s.b_blocked && (s.B != 1 || s.H != 1 || s.b_type != DType::kBf16 || p->b.get_size() == 0)) return nullptr;
  p->c = matrix_desc(s, s.M, s.N, s.c_type, s.c_row, false, s.c_batch, s.c_head);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (s.alpha != 1.0f) attr.set_output_scales(0, {s.alpha});
  if (s.accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  try {
    std::unique_ptr<dnnl::matmul::desc> desc;
    if (s.bias) {
      p->bias = dnnl::memory::desc({1, s.N}, dt::f32, {s.N, 1});
      desc = std::make_unique<dnnl::matmul::desc>(p->a, p->b, p->bias, p->c);
    } else {
      desc = std::make_unique<dnnl::matmul::desc>(p->a, p->b, p->c);
    }
    dnnl::matmul::primitive_desc pd(*desc, attr, runtime().engine);
    // The reference implementation is orders of magnitude slower than converting bf16 operands
    // to f32; an all-f32 product has no faster alternative, so it keeps whatever oneDNN offers.
    const bool all_f32 = s.a_type == DType::kF32 && s.b_type == DType::kF32 && s.c_type == DType::kF32;
    if (!all_f32 && std::strncmp(pd.impl_info_str(), "ref", 3) == 0) return nullptr;
    p->impl = pd.impl_info_str();
    p->scratchpad = pd.scratchpad_desc();
    p->prim = dnnl::matmul(pd);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return p;
}

struct Cache {
  std::mutex mu;
  std::unordered_map<Key, std::unique_ptr<Primitive>, KeyHash> map;
  int64_t created = 0;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: products may run during static destruction
  return *c;
}

}  // namespace

const Primitive* find_primitive(const ProductShape& shape) {
  Key key = make_key(shape);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.map.find(key);
  if (it == c.map.end()) {
    // Shapes that vary from batch to batch (dynamic padding, packed evaluation) would grow the cache
    // without bound (each holds its JIT kernels); past the capacity it starts again. Safe because matmul() is called
    // from one thread at a time and uses the primitive before the next lookup.
    if (static_cast<int64_t>(c.map.size()) >= kCacheCapacity) c.map.clear();
    std::unique_ptr<Primitive> p = build(shape);
    if (p) ++c.created;
    it = c.map.emplace(std::move(key), std::move(p)).first;  // a failure is cached too
  }
  return it->second.get();
}

void execute(const Primitive& p, const void* a, const void* b, void* c, const float* bias) {
  Runtime& rt = runtime();
  dnnl::memory am(p.a, rt.engine, const_cast<void*>(a));
  dnnl::memory bm(p.b, rt.engine, const_cast<void*>(b));
  dnnl::memory cm(p.c, rt.engine, c);
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
  if (bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(p.bias, rt.engine, const_cast<float*>(bias)));
  if (const size_t need = p.scratchpad.get_size(); need > 0) {
    if (need > rt.scratchpad.size()) {
      rt.scratchpad = AlignedVector<uint8_t>();  // the old buffer first: the peak is the new size alone
      rt.scratchpad.resize(need);
    }
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(p.scratchpad, rt.engine, rt.scratchpad.data()));
  }
  p.prim.execute(rt.stream, args);
  rt.stream.wait();
}

const char* impl_name(const Primitive& p) { return p.impl.c_str(); }

namespace {

std::atomic<bool> pair_blocks_everywhere{false};

}  // namespace

std::optional<PairBlockLayout> blocked_layout(int64_t K, int64_t N) {
  const BlockedB b = blocked_b(K, N);
  if (b.layout) return b.layout;
  if (pair_blocks_everywhere) return b.stand_in;
  return std::nullopt;
}

int64_t blocked_layouts_cached() {
  BlockedBCache& c = blocked_b_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return static_cast<int64_t>(c.map.size());
}

void set_pair_blocks_everywhere(bool on) { pair_blocks_everywhere = on; }

std::optional<PairBlockLayout> pair_blocks_of_tag(int64_t rows, int64_t cols, dnnl::memory::format_tag tag) {
  return pair_blocks_of(dnnl::memory::desc({rows, cols}, dt::bf16, tag));
}

int64_t primitives_cached() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return static_cast<int64_t>(c.map.size());
}

int64_t primitives_created() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.created;
}

}  // namespace cpuft::gemm_detail
