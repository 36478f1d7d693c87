// Quantizing a fine-tuned model (question answering, sequence or token classification) to int8 and writing it as a Hugging Face-style directory
// (docs/quantization.md): the int8 weights under the f32 weights' names (dtype I8), a per-channel
// scale beside each, with static activations the calibrated input range of each layer, and a
// "quantization_config" entry in config.json. QaModel::from_int8 reads it back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "cpuft/model/qa_model.h"

namespace cpuft {

// The input range of one linear layer, by the parameter-table offset of its weight.
struct InputRange {
  float lo = 0.f, hi = 0.f;
};
using InputRanges = std::map<size_t, InputRange>;

// True for the tensors that stay f32 in a quantized model although they are matrix-product weights:
// those of the task head's layers (int8_f32_modules: qa_outputs, or a classifier with its
// pre_classifier / pooler), a negligible share of the work that makes the logits themselves.
bool int8_keeps_f32(const ModelConfig& config, const std::string& param_name);

// Writes dir/model.safetensors and then dir/config.json of `model` (an f32 model) quantized to int8;
// with `ranges` (one per quantized layer) the activations are static, else dynamic per token.
// `calibration_windows` is recorded in config.json. The directory must exist.
void save_int8_model(const QaModel& model, const std::string& dir, const InputRanges* ranges,
                     int64_t calibration_windows);

// Calibration: attached to a model, records for every linear layer the mean over windows of each
// window's minimum and maximum input value (over its real tokens: forward computes no padding)
// while forward runs on calibration batches. Detaches on destruction.
class InputRangeRecorder {
 public:
  explicit InputRangeRecorder(QaModel& model);
  ~InputRangeRecorder();
  InputRangeRecorder(const InputRangeRecorder&) = delete;
  InputRangeRecorder& operator=(const InputRangeRecorder&) = delete;

  // The means so far; throws cpuft::Error when no window was seen.
  InputRanges ranges() const;
  int64_t windows() const { return windows_; }

 private:
  struct Sum {
    double lo = 0, hi = 0;
    int64_t windows = 0;
  };
  QaModel& model_;
  std::map<size_t, Sum> sums_;
  int64_t windows_ = 0;
};

}  // namespace cpuft
