// Token embeddings: word + (token type) + position, forward and backward (docs/parity.md, Model).
// Rows are tokens: a padded batch (B,T) is B*T rows with positions t = row % T; a packed batch
// (windows back to back, no padding) gives each token its position inside its own window.
#pragma once

#include <cstdint>

namespace cpuft {

// out (N,C): out[n,:] = (wte[ids[n],:] + wtt[type_ids[n],:]) + wpe[positions[n],:]
// (this summation order is BERT's; without token types it is wte + wpe, DistilBERT).
//   ids (N) in [0, vocab); positions (N) in [0, n_positions); type_ids (N) in [0, n_types),
//   nullable together with wtt (DistilBERT, or BERT with all-zero types when the caller passes
//   type_ids = nullptr and a non-null wtt: then row 0 of wtt is used for every token).
//   wte (vocab,C), wpe (n_positions,C), wtt (n_types,C).
// Throws cpuft::Error (naming the row and the value) before writing anything if an id, a type id
// or a position is out of range.
void embedding_fwd(float* out, const int32_t* ids, const int8_t* type_ids, const int32_t* positions,
                   const float* wte, const float* wpe, const float* wtt, int64_t N, int C, int vocab,
                   int n_types, int n_positions);

// Backward of embedding_fwd. dout (N,C).  Parameter gradients accumulate (+=):
//   dwte (vocab,C): row ids[n] += dout[n,:], EXCEPT rows equal to pad_id (padding_idx: the
//     [PAD] row never receives gradient); pass pad_id = -1 to disable.
//   dwpe (n_positions,C): row positions[n] += dout[n,:] (padded positions included).
//   dwtt (n_types,C), nullable: row type_ids[n] (0 when type_ids is null) += dout[n,:].
// Deterministic: each thread owns a slab of columns and adds rows in order, so the result equals
// the sequential sum bit for bit at any thread count. ids, types and positions must be valid (as
// checked by embedding_fwd).
void embedding_bwd(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                   const int8_t* type_ids, const int32_t* positions, int64_t N, int C, int pad_id);

}  // namespace cpuft
