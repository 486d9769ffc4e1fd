// The embedded transformer's kernels (native/model.c; called by model-passes.c): the sgemm wrapper, the
// fused elementwise loops around it (bias, column sums, LayerNorm, GELU) and causal self-attention, forward
// and backward, on row-major float32 buffers with double accumulators where noted.
#include "model-kernels.h"

#include "fast-math.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

// The stable CBLAS ABI, declared as curricula_native.c does (Debian keeps cblas.h in per-variant folders).
enum { CblasRowMajor = 101 };
enum { CblasNoTrans = 111, CblasTrans = 112 };
extern void cblas_sgemm(int order, int transA, int transB, int m, int n, int k, float alpha, const float *a,
                        int lda, const float *b, int ldb, float beta, float *c, int ldc);

static const float layer_norm_epsilon = 1e-5f;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WIDE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_CLONES
#endif

// C = alpha · op(A) · op(B) + beta · C, row-major with explicit leading dimensions (every size ≥ 1 here).
void model_gemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
}

// out[n] = x[n] + bias for every row (x may be NULL: out[n] = bias): the start of a linear layer's output,
// to which gemm then adds x @ W with beta = 1.
void model_rows_plus_bias(float *restrict out, const float *x, const float *restrict bias, int64_t rows,
                          int64_t width) {
  for (int64_t n = 0; n < rows; n++) {
    float *restrict o = out + n * width;
    const float *xr = x ? x + n * width : NULL;
    for (int64_t j = 0; j < width; j++) o[j] = (xr ? xr[j] : 0.0f) + bias[j];
  }
}

// gradient[j] += Σ_n dy[n, j], summed in double (`sums`, `width` doubles of scratch).
void model_add_column_sums(float *restrict gradient, const float *restrict dy, int64_t rows, int64_t width,
                           double *restrict sums) {
  for (int64_t j = 0; j < width; j++) sums[j] = 0;
  for (int64_t n = 0; n < rows; n++) {
    const float *restrict row = dy + n * width;
    for (int64_t j = 0; j < width; j++) sums[j] += row[j];
  }
  for (int64_t j = 0; j < width; j++) gradient[j] += (float)sums[j];
}

// LayerNorm over rows (eps 1e-5, biased variance), statistics in double; saves mean and 1/σ per row.
void model_layer_norm_forward(float *restrict out, float *restrict mean, float *restrict rstd,
                              const float *restrict x, const float *restrict weight, const float *restrict bias,
                              int64_t rows, int64_t width) {
  for (int64_t n = 0; n < rows; n++) {
    const float *restrict xr = x + n * width;
    double sum = 0;
    for (int64_t j = 0; j < width; j++) sum += xr[j];
    const double m = sum / (double)width;
    double squares = 0;
    for (int64_t j = 0; j < width; j++) squares += (xr[j] - m) * (xr[j] - m);
    const double r = 1.0 / sqrt(squares / (double)width + layer_norm_epsilon);
    float *restrict o = out + n * width;
    for (int64_t j = 0; j < width; j++) o[j] = (float)((xr[j] - m) * r) * weight[j] + bias[j];
    mean[n] = (float)m;
    rstd[n] = (float)r;
  }
}

// LayerNorm backward: with x̂ = (x − mean)·r and g = dy·weight, dx += r·(g − mean(g) − x̂·mean(g·x̂));
// d_weight += Σ dy·x̂ and d_bias += Σ dy, accumulated in double (`sums`: 2·width doubles).
void model_layer_norm_backward(float *restrict dx, float *restrict d_weight, float *restrict d_bias,
                               const float *restrict dy, const float *restrict x, const float *restrict mean,
                               const float *restrict rstd, const float *restrict weight, int64_t rows,
                               int64_t width, double *restrict sums) {
  double *restrict weight_sums = sums, *restrict bias_sums = sums + width;
  for (int64_t j = 0; j < 2 * width; j++) sums[j] = 0;
  for (int64_t n = 0; n < rows; n++) {
    const float *restrict xr = x + n * width, *restrict dyr = dy + n * width;
    const float m = mean[n], r = rstd[n];
    double g_sum = 0, gx_sum = 0;
    for (int64_t j = 0; j < width; j++) {
      const float x_hat = (xr[j] - m) * r, g = dyr[j] * weight[j];
      g_sum += g;
      gx_sum += (double)g * x_hat;
      weight_sums[j] += (double)dyr[j] * x_hat;
      bias_sums[j] += dyr[j];
    }
    const float g_mean = (float)(g_sum / (double)width), gx_mean = (float)(gx_sum / (double)width);
    float *restrict dxr = dx + n * width;
    for (int64_t j = 0; j < width; j++) {
      const float x_hat = (xr[j] - m) * r;
      dxr[j] += (dyr[j] * weight[j] - g_mean - x_hat * gx_mean) * r;
    }
  }
  for (int64_t j = 0; j < width; j++) {
    d_weight[j] += (float)weight_sums[j];
    d_bias[j] += (float)bias_sums[j];
  }
}

WIDE_CLONES void model_gelu_forward(float *restrict out, const float *restrict x, int64_t count) {
  for (int64_t i = 0; i < count; i++) out[i] = x[i] * gelu_gate(x[i]);
}

// The backward pass's one sweep over the MLP's hidden layer: out = gelu(x) again (for c_proj's weight
// gradient) and dx = dy·gelu'(x) in place, gelu' = s + x·s·(1 − s)·2·sqrt(2/π)·(1 + 3·0.044715·x²).
WIDE_CLONES void model_gelu_backward(float *restrict out, float *restrict d, const float *restrict x,
                                     int64_t count) {
  for (int64_t i = 0; i < count; i++) {
    const float xi = x[i], s = gelu_gate(xi);
    const float slope = (xi * xi * (3.0f * gelu_cubic) + 1.0f) * gelu_scale;
    out[i] = xi * s;
    d[i] *= s + xi * (s * (1.0f - s)) * slope;
  }
}

// Query rows per block of the causal attention products: rows [t0, t1) of a block attend to keys [0, t1)
// only, so the products skip the masked upper triangle block by block (at T = 128, 5/8 of the dense work).
enum { AttentionBlock = 32 };

// Multiply-adds × 2 of one head's products over the blocks: rows × keys × hd per block, for each of the
// `products` products that span the causal triangle (forward 2, backward 4).
double model_attention_flops(const Dims *s, int products) {
  const int64_t T = s->time;
  double total = 0;
  for (int64_t t0 = 0; t0 < T; t0 += AttentionBlock) {
    const int64_t t1 = t0 + AttentionBlock < T ? t0 + AttentionBlock : T;
    total += (double)(t1 - t0) * (double)t1;
  }
  return 2.0 * products * total * (double)s->head_width * (double)s->heads * (double)s->rows;
}

// Causal self-attention of all heads: per row b and head h, scores = q·kᵀ/sqrt(hd) (sgemm straight on the
// strided q and k columns of qkv, block by block over the causal triangle), softmax over keys s ≤ t (sums
// in double), out = P·v into [N, d]. P is stored whole, 0 above the diagonal.
void model_attention_forward(float *restrict out, float *restrict att, const float *restrict qkv, const Dims *s) {
  const int64_t T = s->time, d = s->width, hd = s->head_width;
  const float scale = 1.0f / sqrtf((float)hd);
  for (int64_t b = 0; b < s->rows; b++) {
    for (int64_t h = 0; h < s->heads; h++) {
      const float *q = qkv + b * T * 3 * d + h * hd, *k = q + d, *v = q + 2 * d;
      float *p = att + (b * s->heads + h) * T * T;
      for (int64_t t0 = 0; t0 < T; t0 += AttentionBlock) {
        const int64_t t1 = t0 + AttentionBlock < T ? t0 + AttentionBlock : T;
        model_gemm(false, true, t1 - t0, t1, hd, scale, q + t0 * 3 * d, 3 * d, k, 3 * d, 0.0f, p + t0 * T, T);
        for (int64_t t = t0; t < t1; t++) {
          float *row = p + t * T;
          float max = row[0];
          for (int64_t u = 1; u <= t; u++) max = row[u] > max ? row[u] : max;
          double sum = 0;
          for (int64_t u = 0; u <= t; u++) {
            row[u] = expf(row[u] - max);
            sum += row[u];
          }
          const float inverse = (float)(1.0 / sum);
          for (int64_t u = 0; u <= t; u++) row[u] *= inverse;
          for (int64_t u = t + 1; u < T; u++) row[u] = 0.0f;
        }
        model_gemm(false, false, t1 - t0, hd, t1, 1.0f, p + t0 * T, T, v, 3 * d, 0.0f,
                   out + (b * T + t0) * d + h * hd, d);
      }
    }
  }
}

// Its backward: d_att_out [N, d] → d_qkv [N, 3d] (overwritten). Per head: dP = dY·vᵀ, dS = P ∘ (dP −
// rowsum(P ∘ dP)) / sqrt(hd) and dq = dS·k over query blocks (rows [t0, t1), keys [0, t1)); dv = Pᵀ·dY and
// dk = dSᵀ·q over key blocks (keys [s0, s1), rows [s0, T): P and dS are 0 above the diagonal).
void model_attention_backward(float *restrict d_qkv, float *restrict d_scores, const float *restrict d_out,
                              const float *restrict qkv, const float *restrict att, const Dims *s) {
  const int64_t T = s->time, d = s->width, hd = s->head_width;
  const float scale = 1.0f / sqrtf((float)hd);
  for (int64_t b = 0; b < s->rows; b++) {
    for (int64_t h = 0; h < s->heads; h++) {
      const int64_t column = b * T * 3 * d + h * hd;
      const float *q = qkv + column, *k = q + d, *v = q + 2 * d;
      float *dq = d_qkv + column, *dk = dq + d, *dv = dq + 2 * d;
      const float *p = att + (b * s->heads + h) * T * T, *dy = d_out + b * T * d + h * hd;
      for (int64_t t0 = 0; t0 < T; t0 += AttentionBlock) {
        const int64_t t1 = t0 + AttentionBlock < T ? t0 + AttentionBlock : T;
        model_gemm(false, true, t1 - t0, t1, hd, 1.0f, dy + t0 * d, d, v, 3 * d, 0.0f, d_scores + t0 * T, T);
        for (int64_t t = t0; t < t1; t++) {
          const float *pr = p + t * T;
          float *dr = d_scores + t * T;
          double dot = 0;
          for (int64_t u = 0; u <= t; u++) dot += (double)pr[u] * dr[u];
          const float rowsum = (float)dot;
          for (int64_t u = 0; u <= t; u++) dr[u] = pr[u] * (dr[u] - rowsum) * scale;
          for (int64_t u = t + 1; u < T; u++) dr[u] = 0.0f;
        }
        model_gemm(false, false, t1 - t0, hd, t1, 1.0f, d_scores + t0 * T, T, k, 3 * d, 0.0f, dq + t0 * 3 * d,
                   3 * d);
      }
      for (int64_t s0 = 0; s0 < T; s0 += AttentionBlock) {
        const int64_t s1 = s0 + AttentionBlock < T ? s0 + AttentionBlock : T;
        model_gemm(true, false, s1 - s0, hd, T - s0, 1.0f, p + s0 * T + s0, T, dy + s0 * d, d, 0.0f, dv + s0 * 3 * d,
                   3 * d);
        model_gemm(true, false, s1 - s0, hd, T - s0, 1.0f, d_scores + s0 * T + s0, T, q + s0 * 3 * d, 3 * d, 0.0f,
                   dk + s0 * 3 * d, 3 * d);
      }
    }
  }
}
