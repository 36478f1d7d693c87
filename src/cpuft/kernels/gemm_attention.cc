// The attention products of gemm.h, expressed as batched matmul() calls over (batch, head).
#include "cpuft/kernels/gemm.h"

namespace cpuft {
namespace {

MatIn in(const HeadsIn& h, bool trans = false) {
  return MatIn{h.data, h.dtype, h.row_stride, trans, h.batch_stride, h.head_stride};
}

MatOut out(const HeadsOut& h) {
  return MatOut{h.data, h.dtype, h.row_stride, h.batch_stride, h.head_stride};
}

MatmulOptions scaled(float alpha) {
  MatmulOptions opt;
  opt.alpha = alpha;
  return opt;
}

}  // namespace

void attn_scores(int64_t B, int64_t H, int64_t T, int64_t D, const HeadsIn& q, const HeadsIn& k,
                 float alpha, const HeadsOut& scores) {
  matmul(B, H, T, T, D, in(q), in(k, /*trans=*/true), out(scores), scaled(alpha));
}

void attn_context(int64_t B, int64_t H, int64_t T, int64_t D, const HeadsIn& p, const HeadsIn& v,
                  const HeadsOut& ctx) {
  matmul(B, H, T, D, T, in(p), in(v), out(ctx));
}

void attn_context_backward(int64_t B, int64_t H, int64_t T, int64_t D, const HeadsIn& dctx,
                           const HeadsIn& p, const HeadsIn& v, const HeadsOut& dp,
                           const HeadsOut& dv) {
  matmul(B, H, T, T, D, in(dctx), in(v, /*trans=*/true), out(dp));
  matmul(B, H, T, D, T, in(p, /*trans=*/true), in(dctx), out(dv));
}

void attn_scores_backward(int64_t B, int64_t H, int64_t T, int64_t D, const HeadsIn& ds,
                          const HeadsIn& q, const HeadsIn& k, float alpha, const HeadsOut& dq,
                          const HeadsOut& dk) {
  matmul(B, H, T, D, T, in(ds), in(k), out(dq), scaled(alpha));
  matmul(B, H, T, D, T, in(ds, /*trans=*/true), in(q), out(dk), scaled(alpha));
}

}  // namespace cpuft
