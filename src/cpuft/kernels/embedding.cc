// Embedding: argument checks and dispatch.
#include "cpuft/kernels/embedding.h"

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/error.h"

namespace cpuft {

void embedding_fwd(float* out, const int32_t* ids, const int8_t* type_ids, const int32_t* positions,
                   const float* wte, const float* wpe, const float* wtt, int64_t N, int C, int vocab,
                   int n_types, int n_positions) {
  for (int64_t n = 0; n < N; ++n) {
    if (ids[n] < 0 || ids[n] >= vocab)
      fail("embedding: input_ids[", n, "] = ", ids[n], ", expected an id in [0, ", vocab, ")");
    if (wtt && type_ids && (type_ids[n] < 0 || type_ids[n] >= n_types))
      fail("embedding: token_type_ids[", n, "] = ", int(type_ids[n]), ", expected a type in [0, ", n_types, ")");
    if (positions[n] < 0 || positions[n] >= n_positions)
      fail("embedding: position of token ", n, " = ", positions[n], ", expected a position in [0, ", n_positions,
           ")");
  }
  kernels().embedding_fwd(out, ids, type_ids, positions, wte, wpe, wtt, N, C);
}

void embedding_bwd(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                   const int8_t* type_ids, const int32_t* positions, int64_t N, int C, int pad_id) {
  kernels().embedding_bwd(dwte, dwpe, dwtt, dout, ids, type_ids, positions, N, C, pad_id);
}

}  // namespace cpuft
