// Token embeddings: word + (token type) + position, forward and backward (docs/parity.md, Model).
#pragma once

#include <cstdint>

namespace cpuft {

// out (B,T,C): out[b,t,:] = (wte[ids[b,t],:] + wtt[type_ids[b,t],:]) + wpe[t,:]
// (this summation order is BERT's; without token types it is wte + wpe, DistilBERT).
//   ids (B,T) in [0, vocab); type_ids (B,T) in [0, n_types), nullable together with wtt
//   (DistilBERT, or BERT with all-zero types when the caller passes type_ids = nullptr and a
//   non-null wtt: then row 0 of wtt is used for every token).
//   wte (vocab,C), wpe (>=T,C), wtt (n_types,C).
// Throws cpuft::Error (naming the position and the id) before writing anything if an id or a
// type id is out of range.
void embedding_fwd(float* out, const int32_t* ids, const int8_t* type_ids, const float* wte,
                   const float* wpe, const float* wtt, int B, int T, int C, int vocab,
                   int n_types);

// Backward of embedding_fwd. dout (B,T,C).  Parameter gradients accumulate (+=):
//   dwte (vocab,C): row ids[b,t] += dout[b,t,:], EXCEPT rows equal to pad_id (padding_idx: the
//     [PAD] row never receives gradient); pass pad_id = -1 to disable.
//   dwpe (>=T,C): row t += dout[b,t,:] for every b (padded positions included).
//   dwtt (n_types,C), nullable: row type_ids[b,t] (0 when type_ids is null) += dout[b,t,:].
// Deterministic: each thread owns a slab of columns and adds rows in (b,t) order, so the result
// equals the sequential sum bit for bit at any thread count. ids must be valid (as checked by
// embedding_fwd).
void embedding_bwd(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                   const int8_t* type_ids, int B, int T, int C, int pad_id);

}  // namespace cpuft
