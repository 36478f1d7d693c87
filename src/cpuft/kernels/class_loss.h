// Losses of the classification heads (docs/tasks.md, the heads' losses), f32, scalar: the shapes
// are tiny (rows x classes values), so there are no ISA variants.
#pragma once

#include <cstdint>

namespace cpuft {

// The label a row without one carries (torch's CrossEntropyLoss ignore_index; run_ner's -100).
constexpr int32_t kLossIgnoreIndex = -100;

struct ClassLoss {
  float loss;       // mean over the counted rows; NaN when every row is ignored (torch's 0/0)
  int64_t counted;  // rows whose label is not kLossIgnoreIndex
};

// CrossEntropyLoss()(logits (rows, classes), labels (rows)): the mean over counted rows of
// logsumexp(z_i) - z_i[y_i]. A label outside [0, classes) other than kLossIgnoreIndex is an internal
// error. dlogits (rows, classes) nullable: OVERWRITTEN with grad_scale * (softmax(z_i) - onehot(y_i))
// / counted, 0 on ignored rows.
ClassLoss class_cross_entropy(float* dlogits, const float* logits, const int32_t* labels, int64_t rows, int64_t classes,
                              float grad_scale);

// MSELoss()(logits (rows), targets (rows)): mean((z - y)^2). dlogits nullable: OVERWRITTEN with
// grad_scale * 2 (z - y) / rows.
float mse_loss(float* dlogits, const float* logits, const float* targets, int64_t rows, float grad_scale);

}  // namespace cpuft
