// Embedding: argument checks and dispatch.
#include "cpuft/kernels/embedding.h"

#include "cpuft/kernels/kernel_table.h"
#include "cpuft/util/error.h"

namespace cpuft {

void embedding_fwd(float* out, const int32_t* ids, const int8_t* type_ids, const float* wte,
                   const float* wpe, const float* wtt, int B, int T, int C, int vocab,
                   int n_types) {
  const int64_t rows = static_cast<int64_t>(B) * T;
  for (int64_t n = 0; n < rows; ++n) {
    if (ids[n] < 0 || ids[n] >= vocab) {
      fail("embedding: input_ids[", n / T, "][", n % T, "] = ", ids[n], ", expected an id in [0, ",
           vocab, ")");
    }
    if (wtt && type_ids && (type_ids[n] < 0 || type_ids[n] >= n_types)) {
      fail("embedding: token_type_ids[", n / T, "][", n % T, "] = ", int(type_ids[n]),
           ", expected a type in [0, ", n_types, ")");
    }
  }
  kernels().embedding_fwd(out, ids, type_ids, wte, wpe, wtt, B, T, C);
}

void embedding_bwd(float* dwte, float* dwpe, float* dwtt, const float* dout, const int32_t* ids,
                   const int8_t* type_ids, int B, int T, int C, int pad_id) {
  kernels().embedding_bwd(dwte, dwpe, dwtt, dout, ids, type_ids, B, T, C, pad_id);
}

}  // namespace cpuft
