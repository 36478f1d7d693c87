// Int8 models: the dispatch of the encoder's linear layers, QaModel::from_int8, save_int8_model and
// calibration (int8_model.h, docs/quantization.md).
#include "cpuft/model/int8_model.h"

#include "cpuft/model/activations.h"

#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <set>
#include <sstream>

#include "cpuft/io/model_dir.h"
#include "cpuft/io/quantization_config.h"
#include "cpuft/io/safetensors.h"
#include "cpuft/model/stored_shapes.h"
#include "cpuft/util/error.h"
#include "cpuft/util/memory.h"
#include "cpuft/util/shape_text.h"

namespace cpuft {
namespace {

// The tensor `name` of the checkpoint with dtype `dtype` and shape `shape`, or a one-line error.
const WeightTensor& expect_tensor(const WeightFiles& stored, const std::string& dir, const std::string& name,
                                      StDtype dtype, const char* dtype_name, const std::vector<int64_t>& shape,
                                      const char* what) {
  const WeightTensor* t = stored.find(name);
  if (!t)
    fail(stored.files().empty() ? dir : stored.files().front(), ": tensor ", name, " is missing; expected ", dtype_name, " ",
         shape_text(shape), " (", what, ")");
  if (t->info->dtype != dtype)
    fail(t->reader->path(), ": tensor ", t->info->name, " has dtype ", t->info->dtype_name, ", expected ", dtype_name,
         " (", what, ")");
  if (t->info->shape != shape)
    fail(t->reader->path(), ": tensor ", t->info->name, " has shape ", shape_text(t->info->shape), ", expected ",
         shape_text(shape), " (", what, ")");
  return *t;
}

// Gives the whole pages inside [p, p + n) back to the system: the f32 slots of int8 weights, which the
// constructor filled but nothing reads (they read as zeros afterwards). For MiniLM-L6 that is 42 MiB
// of the 90 MiB arena.
void release_pages(float* p, size_t n) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(p + n) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::vector<float> read_floats(const WeightTensor& t) {
  std::vector<float> v(static_cast<size_t>(t.info->numel()));
  t.reader->read_f32(*t.info, v.data());
  return v;
}

}  // namespace

bool int8_keeps_f32(const ModelConfig& config, const std::string& param_name) {
  for (const std::string& module : int8_f32_modules(config.family, config.head.task))
    if (param_name.rfind(module + ".", 0) == 0) return true;
  return false;
}

namespace {

// The weight whose product reads the same input as the layer at `weight`: k and v read the input of
// the q, k, v product, which is observed (and calibrated) at q's offset.
size_t input_owner(const ParamTable& table, size_t weight) {
  for (int i = 0; i < table.num_layers(); ++i) {
    const LayerOffsets& l = table.layer(i);
    if (weight == l.k.w || weight == l.v.w) return l.qkv.w;
  }
  return weight;
}

// A directory stores q, k and v as three int8 layers; the model runs them as one product, so they
// become one layer of 3 x hidden output channels at q's offset (per-channel scales concatenate; the
// three read one input, so a static model must give them one input range).
void fuse_qkv_layers(Int8Weights& weights, const ParamTable& table, const std::string& config_path) {
  for (int i = 0; i < table.num_layers(); ++i) {
    const LayerOffsets& lo = table.layer(i);
    Int8Linear& q = weights.layers.at(lo.q.w);
    for (size_t part : {lo.k.w, lo.v.w}) {
      const Int8Linear& p = weights.layers.at(part);
      if (p.has_range != q.has_range || (p.has_range && (p.range_lo != q.range_lo || p.range_hi != q.range_hi)))
        fail(config_path, ": layer ", i, ": the input ranges of the query, key and value weights differ ([", q.range_lo,
             ", ", q.range_hi, "] and [", p.range_lo, ", ", p.range_hi,
             "]); expected one range for the input they share, as cpuft quantize writes");
      q.w.insert(q.w.end(), p.w.begin(), p.w.end());
      q.w_scale.insert(q.w_scale.end(), p.w_scale.begin(), p.w_scale.end());
      q.w_colsum.insert(q.w_colsum.end(), p.w_colsum.begin(), p.w_colsum.end());
      q.out += p.out;
      weights.layers.erase(part);
    }
  }
}

}  // namespace

void QaModel::linear(float* y, const float* x, GemmIn xin, const LinearOffsets& l, int64_t rows, int64_t in,
                     int64_t out) {
  if (observer_ && view_->packed_cu) observer_(l.w, x, in, view_->packed_cu, view_->batch);  // forward only
  if (int8_) {
    if (const Int8Linear* q = int8_->find(l.w)) {
      int8_linear_fwd(y, x, *q, params_.data() + l.b, rows);
      return;
    }
  }
  linear_fwd(y, xin, gemm_weight(l.w), params_.data() + l.b, rows, in, out);
}

QaModel QaModel::from_int8(const std::string& dir, const NoticeSink& notices) {
  const std::string config_path = dir + "/config.json";
  ModelConfig config = load_model_config(config_path);
  const QuantizationConfig qc =
      read_quantization_config(config.raw, config_path, int8_f32_modules(config.family, config.head.task));
  // Checked before the model is allocated: the headers against config.json, then the size against the
  // memory this process may use (the f32 arena is allocated whole before the int8 slots are released).
  WeightFiles stored(dir, config.family);
  const ParamTable table(config);
  check_stored_shapes(table, stored, dir, config_path, nullptr);
  check_fits_in_memory(weight_bytes(config, /*bf16=*/false),
                       str_cat(config_path, ": ", config.layers, " layers of width ", config.hidden, " (",
                               table.total(), " parameters)"));
  QaModel model(config, /*bf16=*/false, Unfilled{});  // every parameter is read below, or released for int8
  auto weights = std::make_shared<Int8Weights>();
  weights->static_activations = qc.static_activations;
  std::set<std::string> used;
  for (const ParamEntry& e : model.table().entries()) {
    used.insert(e.name);
    float* dst = model.params() + e.offset;
    if (!e.gemm_weight || int8_keeps_f32(model.config(), e.name)) {
      const WeightTensor* t = stored.find(e.name);
      if (!t)
        fail(stored.files().empty() ? dir : stored.files().front(), ": tensor ", e.name, " is missing; expected shape ",
             shape_text(e.shape));
      if (t->info->shape != e.shape)
        fail(t->reader->path(), ": tensor ", t->info->name, " has shape ", shape_text(t->info->shape), ", expected ",
             shape_text(e.shape));
      t->reader->read_f32(*t->info, dst);  // throws for a non-float dtype, naming the file and tensor
      continue;
    }
    const int64_t out = e.shape[0], in = e.shape[1];
    Int8Linear l;
    l.out = out;
    l.in = in;
    const WeightTensor& w = expect_tensor(stored, dir, e.name, StDtype::kI8, "I8", e.shape, "an int8 weight");
    l.w.resize(static_cast<size_t>(out * in));
    std::memcpy(l.w.data(), w.reader->data(*w.info), l.w.size());
    const std::string scale_name = weight_scale_name(e.name);
    used.insert(scale_name);
    const WeightTensor& s =
        expect_tensor(stored, dir, scale_name, StDtype::kF32, "F32", {out}, "the per-output-channel weight scales");
    l.w_scale = read_floats(s);
    for (int64_t n = 0; n < out; ++n) {
      const float v = l.w_scale[static_cast<size_t>(n)];
      if (!(v > 0.f) || !(v <= kMaxInt8WeightScale))
        fail(s.reader->path(), ": tensor ", s.info->name, "[", n, "] is ", v, ", expected a finite scale > 0 and <= ",
             kMaxInt8WeightScale);
    }
    l.w_colsum.assign(static_cast<size_t>(out), 0);
    for (int64_t n = 0; n < out; ++n) {
      int32_t sum = 0;
      for (int64_t k = 0; k < in; ++k) sum += l.w[static_cast<size_t>(n * in + k)];
      l.w_colsum[static_cast<size_t>(n)] = sum;
    }
    release_pages(dst, e.numel);
    const std::string range_name = input_range_name(e.name);
    used.insert(range_name);
    if (!qc.static_activations && stored.find(range_name)) {
      const WeightTensor& r = *stored.find(range_name);
      fail(r.reader->path(), ": tensor ", r.info->name, " is an input range, but ", config_path,
           " says the activations are dynamic (quantization_config.activations.scheme \"dynamic_per_token\"); "
           "expected no input ranges");
    }
    if (qc.static_activations) {
      const WeightTensor& r =
          expect_tensor(stored, dir, range_name, StDtype::kF32, "F32", {2}, "the calibrated input range [min, max]");
      const std::vector<float> v = read_floats(r);
      if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || v[0] > v[1])
        fail(r.reader->path(), ": tensor ", r.info->name, " is [", v[0], ", ", v[1],
             "], expected a finite range [min, max] with min <= max");
      l.has_range = true;
      l.range_lo = v[0];
      l.range_hi = v[1];
    }
    weights->layers.emplace(e.offset, std::move(l));
  }
  fuse_qkv_layers(*weights, model.table(), config_path);
  std::vector<std::string> extra = stored.ignored_keys();
  for (const auto& [name, t] : stored.tensors())
    if (!used.count(name)) extra.push_back(t.info->name);
  if (!extra.empty())
    notices(LogLevel::kNotice, str_cat("ignored ", extra.size(), " stored tensor(s) the model does not use (first: ",
                                      extra.front(), ")"));
  model.int8_ = std::move(weights);
  return model;
}

void save_int8_model(const QaModel& model, const std::string& dir, const InputRanges* ranges,
                     int64_t calibration_windows) {
  if (model.int8()) fail(dir, ": the model is already int8; quantize the full-precision model");
  std::vector<StTensorOut> out;
  std::deque<Int8Linear> layers;            // stable addresses for the tensors' data pointers
  std::deque<std::vector<float>> ranges_kept;
  std::deque<std::string> names;
  for (const ParamEntry& e : model.table().entries()) {
    const float* p = model.params() + e.offset;
    StTensorOut t;
    t.name = e.name;
    t.shape = e.shape;
    if (!e.gemm_weight || int8_keeps_f32(model.config(), e.name)) {
      t.f32 = p;
      out.push_back(std::move(t));
      continue;
    }
    layers.push_back(quantize_linear(p, e.shape[0], e.shape[1]));
    const Int8Linear& l = layers.back();
    for (size_t n = 0; n < l.w_scale.size(); ++n)
      if (!(l.w_scale[n] <= kMaxInt8WeightScale))
        fail("quantize: ", e.name, " row ", n, " has weights up to ", l.w_scale[n] * 127.f, "; expected at most ",
             kMaxInt8WeightScale * 127.f, " (an int8 scale of at most ", kMaxInt8WeightScale, ")");
    t.i8 = l.w.data();
    out.push_back(std::move(t));
    StTensorOut s;
    s.name = weight_scale_name(e.name);
    s.shape = {e.shape[0]};
    s.f32 = l.w_scale.data();
    out.push_back(std::move(s));
    if (ranges) {
      const auto it = ranges->find(input_owner(model.table(), e.offset));
      if (it == ranges->end()) fail("quantize: no calibrated input range for ", e.name);
      ranges_kept.push_back({it->second.lo, it->second.hi});
      StTensorOut r;
      r.name = input_range_name(e.name);
      r.shape = {2};
      r.f32 = ranges_kept.back().data();
      out.push_back(std::move(r));
    }
  }
  write_safetensors(dir + "/model.safetensors", out);
  QuantizationConfig qc;
  qc.f32_modules = int8_f32_modules(model.config().family, model.config().head.task);
  qc.static_activations = ranges != nullptr;
  qc.calibration_windows = ranges ? calibration_windows : 0;
  ModelConfig config = model.config();
  if (!config.raw.is_object()) config.raw = nlohmann::json::object();
  config.raw["quantization_config"] = quantization_config_json(qc);
  save_model_config(config, dir + "/config.json");
}

InputRangeRecorder::InputRangeRecorder(QaModel& model) : model_(model) {
  model_.set_linear_input_observer([this](size_t weight, const float* x, int64_t cols, const int32_t* offsets,
                                          int windows) {
    std::vector<float> lo(static_cast<size_t>(windows)), hi(static_cast<size_t>(windows));
#pragma omp parallel for schedule(static)
    for (int64_t w = 0; w < windows; ++w) {
      float a = std::numeric_limits<float>::infinity(), b = -a;
      const float* p = x + static_cast<int64_t>(offsets[w]) * cols;
      const int64_t n = static_cast<int64_t>(offsets[w + 1] - offsets[w]) * cols;
      for (int64_t i = 0; i < n; ++i) a = std::fmin(a, p[i]), b = std::fmax(b, p[i]);
      lo[static_cast<size_t>(w)] = a;
      hi[static_cast<size_t>(w)] = b;
    }
    Sum& s = sums_[weight];
    for (int64_t w = 0; w < windows; ++w) s.lo += lo[static_cast<size_t>(w)], s.hi += hi[static_cast<size_t>(w)];
    s.windows += windows;
    windows_ = std::max(windows_, s.windows);
  });
}

InputRangeRecorder::~InputRangeRecorder() { model_.set_linear_input_observer(nullptr); }

InputRanges InputRangeRecorder::ranges() const {
  if (windows_ == 0) fail("calibration: no window was seen");
  InputRanges out;
  for (const auto& [weight, s] : sums_)
    out[weight] = InputRange{static_cast<float>(s.lo / static_cast<double>(s.windows)),
                             static_cast<float>(s.hi / static_cast<double>(s.windows))};
  return out;
}

}  // namespace cpuft
