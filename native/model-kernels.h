// The embedded transformer's kernels (model-kernels.c, where each one's comment gives its math): row-major
// float32 buffers, `sums` the caller's double scratch.
#ifndef CURRICULA_MODEL_KERNELS_H
#define CURRICULA_MODEL_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "model-shapes.h"

// C = alpha · op(A) · op(B) + beta · C (cblas_sgemm, row-major).
void model_gemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc);

// out[n] = x[n] + bias (x NULL: bias) for every row.
void model_rows_plus_bias(float *restrict out, const float *x, const float *restrict bias, int64_t rows,
                          int64_t width);

// gradient[j] += Σ_n dy[n, j] (`width` doubles of scratch).
void model_add_column_sums(float *restrict gradient, const float *restrict dy, int64_t rows, int64_t width,
                           double *restrict sums);

void model_layer_norm_forward(float *restrict out, float *restrict mean, float *restrict rstd,
                              const float *restrict x, const float *restrict weight, const float *restrict bias,
                              int64_t rows, int64_t width);

// dx += dLoss/dx; d_weight, d_bias += their gradients (`sums`: 2·width doubles).
void model_layer_norm_backward(float *restrict dx, float *restrict d_weight, float *restrict d_bias,
                               const float *restrict dy, const float *restrict x, const float *restrict mean,
                               const float *restrict rstd, const float *restrict weight, int64_t rows,
                               int64_t width, double *restrict sums);

void model_gelu_forward(float *restrict out, const float *restrict x, int64_t count);

// out = gelu(x) again and d *= gelu'(x), in one sweep.
void model_gelu_backward(float *restrict out, float *restrict d, const float *restrict x, int64_t count);

// FLOPs of the attention products over the causal blocks: `products` = 2 (forward) or 4 (backward).
double model_attention_flops(const Dims *s, int products);

// Causal self-attention of all heads: qkv [N, 3d] → att [B, H, T, T] probabilities and out [N, d].
void model_attention_forward(float *restrict out, float *restrict att, const float *restrict qkv, const Dims *s);

// d_out [N, d] → d_qkv [N, 3d] (overwritten); d_scores: [T, T] scratch.
void model_attention_backward(float *restrict d_qkv, float *restrict d_scores, const float *restrict d_out,
                              const float *restrict qkv, const float *restrict att, const Dims *s);

#endif
