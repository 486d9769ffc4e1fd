// The whole embedded transformer (src/policy/model.ts, layers.ts, teacher-forcing.ts) forward and backward
// in one call, on plain Float32Array / Int32Array buffers from JavaScript (src/policy/native-model.ts):
// per-token log-probs logp = log softmax(logits)[target], the loss Σ w·logp, and dLoss/dθ added into a
// gradient buffer. The tfjs path runs the same math as ~100 kernels per layer, each one a pass over memory
// and a dispatch; here there is one pass per layer, as in llm.c (Karpathy, train_gpt2.c): every
// activation lives in one arena that is allocated once and reused between calls (it grows, never shrinks),
// the elementwise steps are fused loops around cblas_sgemm, and the backward pass walks the layers in
// reverse over the saved activations.
//
// Shapes: N = B·T tokens, d model width, H heads, hd = d / H, V vocabulary, L layers; weights [in, out]
// applied as x @ W, all row-major. The parameter buffer is every tensor of parameterSpecs() (model.ts)
// concatenated in canonical order.
//
// Numerics: float32 throughout as in tfjs, but LayerNorm statistics, softmax sums, the loss and the bias and
// LayerNorm-gain gradients (sums over N rows) are accumulated in double. Deviations from the tfjs ops:
// the 1/sqrt(hd) scale is sgemm's alpha instead of a multiply of q, and masked attention entries are
// skipped (tfjs adds −1e9, whose exp is exactly 0 in float32: the same result).
//
// Nothing is written to the caller's buffers until the whole pass has succeeded: logprobs and the
// gradient are computed in the arena and copied (added) at the end, so a thrown error leaves them as they
// were. Every argument is checked first and a bad one throws a JavaScript error; a non-finite loss or
// gradient throws too, naming the first parameter or layer output where it appears.
#include <math.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The stable CBLAS ABI, declared as curricula_native.c does (Debian keeps cblas.h in per-variant folders).
enum { CblasRowMajor = 101 };
enum { CblasNoTrans = 111, CblasTrans = 112 };
extern void cblas_sgemm(int order, int transA, int transB, int m, int n, int k, float alpha, const float *a,
                        int lda, const float *b, int ldb, float beta, float *c, int ldc);

static const char *const fn = "curricula_native.modelForwardBackward";

// Limits that keep every size product far below int64 overflow and every sgemm dimension below 2^31.
enum { MaxWidth = 1 << 14, MaxLayers = 1 << 10, MaxContext = 1 << 16, MaxVocab = 1 << 24, MaxTokens = 1 << 22 };
// The arena may not exceed 8 GiB (in floats).
static const uint64_t max_arena_floats = (uint64_t)1 << 31;

static const float layer_norm_epsilon = 1e-5f;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WIDE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_CLONES
#endif

// ---------------------------------------------------------------------------------------------- shapes

typedef struct {
  int64_t vocab, width, layers, heads, context, head_width, rows, time, tokens;
} Dims;

// One block's tensors, in canonical order (layers.ts blockParameterNames).
enum { LayerTensors = 12 };
typedef struct {
  float *ln1_w, *ln1_b, *qkv_w, *qkv_b, *proj_w, *proj_b, *ln2_w, *ln2_b, *fc_w, *fc_b, *fc_proj_w, *fc_proj_b;
} LayerParameters;

static const char *const layer_tensor_names[LayerTensors] = {
    "ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight", "attn.c_proj.bias",
    "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"};

static int64_t layer_tensor_size(const Dims *s, int index) {
  const int64_t d = s->width;
  const int64_t sizes[LayerTensors] = {d, d, 3 * d * d, 3 * d, d * d, d, d, d, 4 * d * d, 4 * d, 4 * d * d, d};
  return sizes[index];
}

static int64_t layer_parameter_count(const Dims *s) { return 12 * s->width * s->width + 13 * s->width; }

static int64_t parameter_count(const Dims *s) {
  return s->vocab * s->width + s->context * s->width + s->layers * layer_parameter_count(s) + 2 * s->width +
         s->width * s->vocab;
}

// Tensor `index` of 2 + 12·L + 3 in canonical order: its name (into `name`), offset and size in floats.
static void parameter_tensor(const Dims *s, int64_t index, char *name, size_t name_size, int64_t *offset,
                             int64_t *size) {
  const int64_t d = s->width, embeddings = s->vocab * d + s->context * d;
  const int64_t final_offset = embeddings + s->layers * layer_parameter_count(s);
  if (index == 0) {
    snprintf(name, name_size, "wte.weight");
    *offset = 0, *size = s->vocab * d;
  } else if (index == 1) {
    snprintf(name, name_size, "wpe.weight");
    *offset = s->vocab * d, *size = s->context * d;
  } else if (index < 2 + LayerTensors * s->layers) {
    const int64_t layer = (index - 2) / LayerTensors;
    const int within = (int)((index - 2) % LayerTensors);
    int64_t at = embeddings + layer * layer_parameter_count(s);
    for (int i = 0; i < within; i++) at += layer_tensor_size(s, i);
    snprintf(name, name_size, "h.%lld.%s", (long long)layer, layer_tensor_names[within]);
    *offset = at, *size = layer_tensor_size(s, within);
  } else {
    const int64_t last = index - 2 - LayerTensors * s->layers;
    snprintf(name, name_size, "%s", last == 0 ? "ln_f.weight" : last == 1 ? "ln_f.bias" : "lm_head.weight");
    *offset = final_offset + last * d, *size = last == 2 ? d * s->vocab : d;
  }
}

static LayerParameters layer_parameters(float *base, const Dims *s, int64_t layer) {
  float *p = base + s->vocab * s->width + s->context * s->width + layer * layer_parameter_count(s);
  LayerParameters out;
  float **slots[LayerTensors] = {&out.ln1_w, &out.ln1_b, &out.qkv_w, &out.qkv_b, &out.proj_w, &out.proj_b,
                                 &out.ln2_w, &out.ln2_b, &out.fc_w,  &out.fc_b,  &out.fc_proj_w, &out.fc_proj_b};
  for (int i = 0; i < LayerTensors; i++) {
    *slots[i] = p;
    p += layer_tensor_size(s, i);
  }
  return out;
}

// ----------------------------------------------------------------------------------------------- arena

// Saved activations of one block, all [N, ·] row-major: what its backward pass reads.
typedef struct {
  float *ln1, *ln1_mean, *ln1_rstd; // [N, d], [N], [N]
  float *qkv;                       // [N, 3d], columns q | k | v, head h at h·hd within each
  float *att;                       // [B, H, T, T] softmax probabilities, 0 above the diagonal
  float *att_out;                   // [N, d] heads merged, before c_proj
  float *x1;                        // [N, d] residual after attention
  float *ln2, *ln2_mean, *ln2_rstd; // [N, d], [N], [N]
  float *fc;                        // [N, 4d] before GELU
  float *out;                       // [N, d] residual after the MLP: the next block's input
} LayerActivations;

typedef struct {
  float *gradients;                 // [P] this call's gradient (added to the caller's at the end)
  float *logprobs;                  // [N]
  float *x0;                        // [N, d] wte[input] + wpe[t]
  float *lnf, *lnf_mean, *lnf_rstd; // [N, d], [N], [N]
  float *logits;                    // [N, V], overwritten by dLoss/dlogits
  float *gelu, *d_hidden;           // [N, 4d] GELU output (forward, recomputed backward), its gradient
  float *d_residual, *d_norm;       // [N, d] gradient of the residual stream; of a LayerNorm's output
  float *d_qkv;                     // [N, 3d]
  float *d_scores;                  // [T, T] one head's attention gradient
} Buffers;

typedef struct {
  float *floats;
  uint64_t float_capacity;
  double *doubles; // [8d] double accumulators of the bias and gain gradients
  uint64_t double_capacity;
  LayerActivations *layers;
  uint64_t layer_capacity;
} Arena;

// Carves consecutive 64-byte-aligned slices out of the arena; with base NULL it only counts (saturating,
// so that absurd sizes compare above the limit instead of wrapping).
typedef struct {
  float *base;
  uint64_t used;
} Carver;

static float *take(Carver *carver, uint64_t count) {
  const uint64_t rounded = (count + 15) & ~(uint64_t)15;
  float *slice = carver->base ? carver->base + carver->used : NULL;
  carver->used = (carver->used > UINT64_MAX / 4 || rounded > UINT64_MAX / 4) ? UINT64_MAX / 2
                                                                             : carver->used + rounded;
  return slice;
}

static uint64_t layout(Carver *c, const Dims *s, Buffers *b, LayerActivations *layers) {
  const uint64_t n = (uint64_t)s->tokens, d = (uint64_t)s->width;
  b->gradients = take(c, (uint64_t)parameter_count(s));
  b->logprobs = take(c, n);
  b->x0 = take(c, n * d);
  for (int64_t l = 0; l < s->layers; l++) {
    LayerActivations a;
    a.ln1 = take(c, n * d), a.ln1_mean = take(c, n), a.ln1_rstd = take(c, n);
    a.qkv = take(c, 3 * n * d);
    a.att = take(c, n * (uint64_t)s->heads * (uint64_t)s->time);
    a.att_out = take(c, n * d), a.x1 = take(c, n * d);
    a.ln2 = take(c, n * d), a.ln2_mean = take(c, n), a.ln2_rstd = take(c, n);
    a.fc = take(c, 4 * n * d), a.out = take(c, n * d);
    if (layers) layers[l] = a;
  }
  b->lnf = take(c, n * d), b->lnf_mean = take(c, n), b->lnf_rstd = take(c, n);
  b->logits = take(c, n * (uint64_t)s->vocab);
  b->gelu = take(c, 4 * n * d), b->d_hidden = take(c, 4 * n * d);
  b->d_residual = take(c, n * d), b->d_norm = take(c, n * d), b->d_qkv = take(c, 3 * n * d);
  b->d_scores = take(c, (uint64_t)s->time * (uint64_t)s->time);
  return c->used;
}

// Makes room for `floats` floats, 8d doubles and L layer records. 0 when malloc fails.
static int arena_reserve(Arena *arena, uint64_t floats, uint64_t doubles, uint64_t layers) {
  if (floats > arena->float_capacity) {
    free(arena->floats);
    arena->floats = aligned_alloc(64, (size_t)floats * sizeof(float)); // floats is a multiple of 16
    arena->float_capacity = arena->floats ? floats : 0;
    if (!arena->floats) return 0;
  }
  if (doubles > arena->double_capacity) {
    free(arena->doubles);
    arena->doubles = malloc((size_t)doubles * sizeof(double));
    arena->double_capacity = arena->doubles ? doubles : 0;
    if (!arena->doubles) return 0;
  }
  if (layers > arena->layer_capacity) {
    free(arena->layers);
    arena->layers = malloc((size_t)layers * sizeof(LayerActivations));
    arena->layer_capacity = arena->layers ? layers : 0;
    if (!arena->layers) return 0;
  }
  return 1;
}

static void arena_free(void *data) {
  Arena *arena = data;
  free(arena->floats);
  free(arena->doubles);
  free(arena->layers);
  free(arena);
}

// ---------------------------------------------------------------------------------------------- kernels

// C = alpha · op(A) · op(B) + beta · C, row-major with explicit leading dimensions (every size ≥ 1 here).
static void gemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                 int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
}

// out[n] = x[n] + bias for every row (x may be NULL: out[n] = bias): the start of a linear layer's output,
// to which gemm then adds x @ W with beta = 1.
static void rows_plus_bias(float *restrict out, const float *x, const float *restrict bias, int64_t rows,
                           int64_t width) {
  for (int64_t n = 0; n < rows; n++) {
    float *restrict o = out + n * width;
    const float *xr = x ? x + n * width : NULL;
    for (int64_t j = 0; j < width; j++) o[j] = (xr ? xr[j] : 0.0f) + bias[j];
  }
}

// gradient[j] += Σ_n dy[n, j], summed in double (`sums`, `width` doubles of scratch).
static void add_column_sums(float *restrict gradient, const float *restrict dy, int64_t rows, int64_t width,
                            double *restrict sums) {
  for (int64_t j = 0; j < width; j++) sums[j] = 0;
  for (int64_t n = 0; n < rows; n++) {
    const float *restrict row = dy + n * width;
    for (int64_t j = 0; j < width; j++) sums[j] += row[j];
  }
  for (int64_t j = 0; j < width; j++) gradient[j] += (float)sums[j];
}

// LayerNorm over rows (eps 1e-5, biased variance), statistics in double; saves mean and 1/σ per row.
static void layer_norm_forward(float *restrict out, float *restrict mean, float *restrict rstd,
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
static void layer_norm_backward(float *restrict dx, float *restrict d_weight, float *restrict d_bias,
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

// e^x for x ≤ 0 in straight-line code the compiler vectorises, as fused.c's exp_nonpositive (relative error
// below 3e-7; exactly 0 below −87): x = n·ln 2 + r, e^r by its degree-6 Taylor polynomial, 2^n in the bits.
static inline float exp_nonpositive(float x) {
  const float clamped = x < -87.0f ? -87.0f : x;
  const float n = (clamped * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f;
  const float p =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
  const int32_t bits = ((int32_t)n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return x < -87.0f ? 0.0f : p * scale;
}

// GELU, tanh approximation, as x·s with s = sigmoid(2·sqrt(2/π)·x·(1 + 0.044715·x²)) (layers.ts's form).
static const float gelu_scale = 1.5957691216057308f, gelu_cubic = 0.044715f;

static inline float gelu_gate(float x) {
  const float z = x * (x * x * gelu_cubic + 1.0f) * gelu_scale;
  const float e = exp_nonpositive(-fabsf(z));
  return (z >= 0 ? 1.0f : e) / (1.0f + e);
}

WIDE_CLONES static void gelu_forward(float *restrict out, const float *restrict x, int64_t count) {
  for (int64_t i = 0; i < count; i++) out[i] = x[i] * gelu_gate(x[i]);
}

// The backward pass's one sweep over the MLP's hidden layer: out = gelu(x) again (for c_proj's weight
// gradient) and dx = dy·gelu'(x) in place, gelu' = s + x·s·(1 − s)·2·sqrt(2/π)·(1 + 3·0.044715·x²).
WIDE_CLONES static void gelu_backward(float *restrict out, float *restrict d, const float *restrict x,
                                      int64_t count) {
  for (int64_t i = 0; i < count; i++) {
    const float xi = x[i], s = gelu_gate(xi);
    const float slope = (xi * xi * (3.0f * gelu_cubic) + 1.0f) * gelu_scale;
    out[i] = xi * s;
    d[i] *= s + xi * (s * (1.0f - s)) * slope;
  }
}

// Causal self-attention of all heads: per row b and head h, scores = q·kᵀ/sqrt(hd) (sgemm straight on the
// strided q and k columns of qkv), softmax over keys s ≤ t (sums in double), out = P·v into [N, d].
static void attention_forward(float *restrict out, float *restrict att, const float *restrict qkv, const Dims *s) {
  const int64_t T = s->time, d = s->width, hd = s->head_width;
  const float scale = 1.0f / sqrtf((float)hd);
  for (int64_t b = 0; b < s->rows; b++) {
    for (int64_t h = 0; h < s->heads; h++) {
      const float *q = qkv + b * T * 3 * d + h * hd, *k = q + d, *v = q + 2 * d;
      float *p = att + (b * s->heads + h) * T * T;
      gemm(false, true, T, T, hd, scale, q, 3 * d, k, 3 * d, 0.0f, p, T);
      for (int64_t t = 0; t < T; t++) {
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
      gemm(false, false, T, hd, T, 1.0f, p, T, v, 3 * d, 0.0f, out + b * T * d + h * hd, d);
    }
  }
}

// Its backward: d_att_out [N, d] → d_qkv [N, 3d] (overwritten). Per head: dP = dY·vᵀ, dv = Pᵀ·dY,
// dS = P ∘ (dP − rowsum(P ∘ dP)) / sqrt(hd), dq = dS·k, dk = dSᵀ·q.
static void attention_backward(float *restrict d_qkv, float *restrict d_scores, const float *restrict d_out,
                               const float *restrict qkv, const float *restrict att, const Dims *s) {
  const int64_t T = s->time, d = s->width, hd = s->head_width;
  const float scale = 1.0f / sqrtf((float)hd);
  for (int64_t b = 0; b < s->rows; b++) {
    for (int64_t h = 0; h < s->heads; h++) {
      const int64_t column = b * T * 3 * d + h * hd;
      const float *q = qkv + column, *k = q + d, *v = q + 2 * d;
      float *dq = d_qkv + column, *dk = dq + d, *dv = dq + 2 * d;
      const float *p = att + (b * s->heads + h) * T * T, *dy = d_out + b * T * d + h * hd;
      gemm(false, true, T, T, hd, 1.0f, dy, d, v, 3 * d, 0.0f, d_scores, T);
      gemm(true, false, T, hd, T, 1.0f, p, T, dy, d, 0.0f, dv, 3 * d);
      for (int64_t t = 0; t < T; t++) {
        const float *pr = p + t * T;
        float *dr = d_scores + t * T;
        double dot = 0;
        for (int64_t u = 0; u <= t; u++) dot += (double)pr[u] * dr[u];
        const float rowsum = (float)dot;
        for (int64_t u = 0; u <= t; u++) dr[u] = pr[u] * (dr[u] - rowsum) * scale;
        for (int64_t u = t + 1; u < T; u++) dr[u] = 0.0f;
      }
      gemm(false, false, T, hd, T, 1.0f, d_scores, T, k, 3 * d, 0.0f, dq, 3 * d);
      gemm(true, false, T, hd, T, 1.0f, d_scores, T, q, 3 * d, 0.0f, dk, 3 * d);
    }
  }
}

// ------------------------------------------------------------------------------------------ the passes

typedef struct {
  const float *params;
  const int32_t *inputs, *targets;
  const float *weights;
} Inputs;

static void forward(const Inputs *in, const Dims *s, Buffers *b, LayerActivations *acts) {
  const int64_t N = s->tokens, d = s->width, V = s->vocab;
  float *params = (float *)in->params; // read only; layer_parameters takes a mutable base for the gradients
  const float *wte = params, *wpe = params + V * d;
  for (int64_t n = 0; n < N; n++) {
    const float *token = wte + (int64_t)in->inputs[n] * d, *position = wpe + (n % s->time) * d;
    for (int64_t j = 0; j < d; j++) b->x0[n * d + j] = token[j] + position[j];
  }
  const float *x = b->x0;
  for (int64_t l = 0; l < s->layers; l++) {
    const LayerParameters w = layer_parameters(params, s, l);
    LayerActivations *a = &acts[l];
    layer_norm_forward(a->ln1, a->ln1_mean, a->ln1_rstd, x, w.ln1_w, w.ln1_b, N, d);
    rows_plus_bias(a->qkv, NULL, w.qkv_b, N, 3 * d);
    gemm(false, false, N, 3 * d, d, 1.0f, a->ln1, d, w.qkv_w, 3 * d, 1.0f, a->qkv, 3 * d);
    attention_forward(a->att_out, a->att, a->qkv, s);
    rows_plus_bias(a->x1, x, w.proj_b, N, d);
    gemm(false, false, N, d, d, 1.0f, a->att_out, d, w.proj_w, d, 1.0f, a->x1, d);
    layer_norm_forward(a->ln2, a->ln2_mean, a->ln2_rstd, a->x1, w.ln2_w, w.ln2_b, N, d);
    rows_plus_bias(a->fc, NULL, w.fc_b, N, 4 * d);
    gemm(false, false, N, 4 * d, d, 1.0f, a->ln2, d, w.fc_w, 4 * d, 1.0f, a->fc, 4 * d);
    gelu_forward(b->gelu, a->fc, N * 4 * d);
    rows_plus_bias(a->out, a->x1, w.fc_proj_b, N, d);
    gemm(false, false, N, d, 4 * d, 1.0f, b->gelu, 4 * d, w.fc_proj_w, d, 1.0f, a->out, d);
    x = a->out;
  }
  const float *final = params + V * d + s->context * d + s->layers * layer_parameter_count(s);
  layer_norm_forward(b->lnf, b->lnf_mean, b->lnf_rstd, x, final, final + d, N, d);
  gemm(false, false, N, V, d, 1.0f, b->lnf, d, final + 2 * d, V, 0.0f, b->logits, V);
}

// Log-probs of the targets, the loss Σ w·logp, and dLoss/dlogits = w·(onehot(target) − softmax) in place
// of the logits. Sums in double.
static double loss_and_logit_gradient(const Inputs *in, const Dims *s, Buffers *b) {
  const int64_t V = s->vocab;
  double loss = 0;
  for (int64_t n = 0; n < s->tokens; n++) {
    float *row = b->logits + n * V;
    float max = row[0];
    for (int64_t v = 1; v < V; v++) max = row[v] > max ? row[v] : max;
    double sum = 0;
    for (int64_t v = 0; v < V; v++) sum += exp((double)row[v] - max);
    const double log_sum = max + log(sum);
    const double logp = row[in->targets[n]] - log_sum;
    b->logprobs[n] = (float)logp;
    const float w = in->weights[n];
    loss += (double)w * logp;
    for (int64_t v = 0; v < V; v++) row[v] = (float)(-(double)w * exp((double)row[v] - log_sum));
    row[in->targets[n]] += w;
  }
  return loss;
}

static void backward(const Inputs *in, const Dims *s, Buffers *b, LayerActivations *acts, double *sums) {
  const int64_t N = s->tokens, d = s->width, V = s->vocab;
  float *params = (float *)in->params;
  const int64_t final_offset = V * d + s->context * d + s->layers * layer_parameter_count(s);
  const float *final = params + final_offset;
  float *g_final = b->gradients + final_offset;
  const float *x_last = s->layers > 0 ? acts[s->layers - 1].out : b->x0;
  // lm_head and ln_f
  gemm(true, false, d, V, N, 1.0f, b->lnf, d, b->logits, V, 1.0f, g_final + 2 * d, V);
  gemm(false, true, N, d, V, 1.0f, b->logits, V, final + 2 * d, V, 0.0f, b->d_norm, d);
  memset(b->d_residual, 0, (size_t)(N * d) * sizeof(float));
  layer_norm_backward(b->d_residual, g_final, g_final + d, b->d_norm, x_last, b->lnf_mean, b->lnf_rstd, final, N, d,
                      sums);
  for (int64_t l = s->layers - 1; l >= 0; l--) {
    const LayerParameters w = layer_parameters(params, s, l);
    const LayerParameters g = layer_parameters(b->gradients, s, l);
    const LayerActivations *a = &acts[l];
    const float *x = l > 0 ? acts[l - 1].out : b->x0;
    // MLP: out = x1 + gelu(ln2 @ W_fc + b_fc) @ W_proj + b_proj
    gemm(false, true, N, 4 * d, d, 1.0f, b->d_residual, d, w.fc_proj_w, d, 0.0f, b->d_hidden, 4 * d);
    gelu_backward(b->gelu, b->d_hidden, a->fc, N * 4 * d);
    gemm(true, false, 4 * d, d, N, 1.0f, b->gelu, 4 * d, b->d_residual, d, 1.0f, g.fc_proj_w, d);
    add_column_sums(g.fc_proj_b, b->d_residual, N, d, sums);
    gemm(true, false, d, 4 * d, N, 1.0f, a->ln2, d, b->d_hidden, 4 * d, 1.0f, g.fc_w, 4 * d);
    add_column_sums(g.fc_b, b->d_hidden, N, 4 * d, sums);
    gemm(false, true, N, d, 4 * d, 1.0f, b->d_hidden, 4 * d, w.fc_w, 4 * d, 0.0f, b->d_norm, d);
    layer_norm_backward(b->d_residual, g.ln2_w, g.ln2_b, b->d_norm, a->x1, a->ln2_mean, a->ln2_rstd, w.ln2_w, N, d,
                        sums);
    // attention: x1 = x + attention(ln1 @ W_qkv + b_qkv) @ W_proj + b_proj
    gemm(true, false, d, d, N, 1.0f, a->att_out, d, b->d_residual, d, 1.0f, g.proj_w, d);
    add_column_sums(g.proj_b, b->d_residual, N, d, sums);
    gemm(false, true, N, d, d, 1.0f, b->d_residual, d, w.proj_w, d, 0.0f, b->d_norm, d);
    attention_backward(b->d_qkv, b->d_scores, b->d_norm, a->qkv, a->att, s);
    gemm(true, false, d, 3 * d, N, 1.0f, a->ln1, d, b->d_qkv, 3 * d, 1.0f, g.qkv_w, 3 * d);
    add_column_sums(g.qkv_b, b->d_qkv, N, 3 * d, sums);
    gemm(false, true, N, d, 3 * d, 1.0f, b->d_qkv, 3 * d, w.qkv_w, 3 * d, 0.0f, b->d_norm, d);
    layer_norm_backward(b->d_residual, g.ln1_w, g.ln1_b, b->d_norm, x, a->ln1_mean, a->ln1_rstd, w.ln1_w, N, d,
                        sums);
  }
  float *g_wte = b->gradients, *g_wpe = b->gradients + V * d;
  for (int64_t n = 0; n < N; n++) {
    const float *dx = b->d_residual + n * d;
    float *token = g_wte + (int64_t)in->inputs[n] * d, *position = g_wpe + (n % s->time) * d;
    for (int64_t j = 0; j < d; j++) {
      token[j] += dx[j];
      position[j] += dx[j];
    }
  }
}

// -------------------------------------------------------------------------------------- diagnostics

static int64_t first_non_finite(const float *x, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    if (!isfinite(x[i])) return i;
  return -1;
}

// After a non-finite loss: the first parameter tensor, else the first saved activation, that holds one.
static void describe_forward_failure(char *message, size_t size, const Inputs *in, const Dims *s,
                                     const Buffers *b, const LayerActivations *acts, double loss) {
  char name[64];
  int64_t offset, count;
  const int64_t tensors = 2 + LayerTensors * s->layers + 3;
  for (int64_t i = 0; i < tensors; i++) {
    parameter_tensor(s, i, name, sizeof name, &offset, &count);
    if (first_non_finite(in->params + offset, count) >= 0) {
      snprintf(message, size, "%s: the loss is %g: parameter %s holds a non-finite value", fn, loss, name);
      return;
    }
  }
  const int64_t N = s->tokens, d = s->width;
  if (first_non_finite(b->x0, N * d) >= 0) {
    snprintf(message, size, "%s: the loss is %g: first non-finite in the embeddings (wte + wpe)", fn, loss);
    return;
  }
  for (int64_t l = 0; l < s->layers; l++) {
    const LayerActivations *a = &acts[l];
    const struct {
      const float *x;
      int64_t count;
      const char *what;
    } checks[] = {
        {a->ln1, N * d, "ln_1 output"},         {a->qkv, 3 * N * d, "attn.c_attn output"},
        {a->att, N * s->heads * s->time, "attention probabilities"}, {a->att_out, N * d, "attention output"},
        {a->x1, N * d, "residual after attn.c_proj"}, {a->ln2, N * d, "ln_2 output"},
        {a->fc, 4 * N * d, "mlp.c_fc output"},  {a->out, N * d, "residual after mlp.c_proj"},
    };
    for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++) {
      if (first_non_finite(checks[c].x, checks[c].count) >= 0) {
        snprintf(message, size, "%s: the loss is %g: first non-finite in h.%lld %s", fn, loss, (long long)l,
                 checks[c].what);
        return;
      }
    }
  }
  if (first_non_finite(b->lnf, N * d) >= 0)
    snprintf(message, size, "%s: the loss is %g: first non-finite in the ln_f output", fn, loss);
  else
    snprintf(message, size, "%s: the loss is %g: the logits overflow (lm_head)", fn, loss);
}

// ---------------------------------------------------------------------------------------- arguments

#define FAIL(env, ...)                                                                                 \
  do {                                                                                                 \
    char failure_[320];                                                                                \
    snprintf(failure_, sizeof failure_, __VA_ARGS__);                                                  \
    napi_throw_error((env), NULL, failure_);                                                           \
    return NULL;                                                                                       \
  } while (0)

// An integer argument in [low, high]; 0 (nothing thrown) when it is not one.
static int get_integer(napi_env env, napi_value value, int64_t low, int64_t high, int64_t *out) {
  double number;
  if (napi_get_value_double(env, value, &number) != napi_ok || !(number >= (double)low) ||
      !(number <= (double)high) || number != floor(number))
    return 0;
  *out = (int64_t)number;
  return 1;
}

// A typed array of `type` with exactly `length` elements; 0 (nothing thrown) when it is not one.
static int get_array(napi_env env, napi_value value, napi_typedarray_type type, int64_t length, void **data) {
  napi_typedarray_type actual;
  size_t count;
  if (napi_get_typedarray_info(env, value, &actual, &count, data, NULL, NULL) != napi_ok || actual != type ||
      (int64_t)count != length)
    return 0;
  return 1;
}

static bool overlaps(const void *a, int64_t a_bytes, const void *b, int64_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x < y + (uintptr_t)b_bytes && y < x + (uintptr_t)a_bytes;
}

// modelForwardBackward(vocab, dModel, layers, heads, context, params, gradients, inputs, targets, weights,
//                      rows, time, logprobs) → loss
// params, gradients: Float32Array [P] (canonical order; dLoss/dθ is ADDED to gradients); inputs, targets:
// Int32Array [rows·time]; weights: Float32Array [rows·time], signed (loss = Σ weights·logp); logprobs:
// Float32Array [rows·time], written with every position's log p(target), padding included.
static napi_value model_forward_backward(napi_env env, napi_callback_info info) {
  size_t argc = 13;
  napi_value argv[13];
  void *data;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, &data) != napi_ok) FAIL(env, "%s: bad call", fn);
  if (argc != 13) FAIL(env, "%s: expected 13 arguments, got %zu", fn, argc);
  Arena *arena = data;
  Dims s;
  if (!get_integer(env, argv[0], 2, MaxVocab, &s.vocab))
    FAIL(env, "%s: vocab must be an integer in [2, %d]", fn, MaxVocab);
  if (!get_integer(env, argv[1], 1, MaxWidth, &s.width))
    FAIL(env, "%s: dModel must be an integer in [1, %d]", fn, MaxWidth);
  if (!get_integer(env, argv[2], 1, MaxLayers, &s.layers))
    FAIL(env, "%s: layers must be an integer in [1, %d]", fn, MaxLayers);
  if (!get_integer(env, argv[3], 1, s.width, &s.heads) || s.width % s.heads != 0)
    FAIL(env, "%s: heads must be an integer that divides dModel %lld", fn, (long long)s.width);
  if (!get_integer(env, argv[4], 2, MaxContext, &s.context))
    FAIL(env, "%s: context must be an integer in [2, %d]", fn, MaxContext);
  s.head_width = s.width / s.heads;
  if (!get_integer(env, argv[10], 1, MaxTokens, &s.rows))
    FAIL(env, "%s: rows must be an integer in [1, %d]", fn, MaxTokens);
  if (!get_integer(env, argv[11], 1, s.context, &s.time))
    FAIL(env, "%s: time must be an integer in [1, context %lld]", fn, (long long)s.context);
  if (s.rows * s.time > MaxTokens)
    FAIL(env, "%s: rows·time = %lld exceeds %d tokens per call", fn, (long long)(s.rows * s.time), MaxTokens);
  s.tokens = s.rows * s.time;
  const int64_t P = parameter_count(&s), N = s.tokens;

  Inputs in;
  void *pointer;
  if (!get_array(env, argv[5], napi_float32_array, P, &pointer))
    FAIL(env, "%s: params must be a Float32Array of %lld values (every parameter in canonical order)", fn,
         (long long)P);
  in.params = pointer;
  float *gradients;
  if (!get_array(env, argv[6], napi_float32_array, P, &pointer))
    FAIL(env, "%s: gradients must be a Float32Array of %lld values", fn, (long long)P);
  gradients = pointer;
  if (!get_array(env, argv[7], napi_int32_array, N, &pointer))
    FAIL(env, "%s: inputs must be an Int32Array of rows·time = %lld ids", fn, (long long)N);
  in.inputs = pointer;
  if (!get_array(env, argv[8], napi_int32_array, N, &pointer))
    FAIL(env, "%s: targets must be an Int32Array of rows·time = %lld ids", fn, (long long)N);
  in.targets = pointer;
  if (!get_array(env, argv[9], napi_float32_array, N, &pointer))
    FAIL(env, "%s: weights must be a Float32Array of rows·time = %lld values", fn, (long long)N);
  in.weights = pointer;
  float *logprobs;
  if (!get_array(env, argv[12], napi_float32_array, N, &pointer))
    FAIL(env, "%s: logprobs must be a Float32Array of rows·time = %lld values", fn, (long long)N);
  logprobs = pointer;
  if (overlaps(gradients, 4 * P, in.params, 4 * P) || overlaps(logprobs, 4 * N, gradients, 4 * P) ||
      overlaps(logprobs, 4 * N, in.params, 4 * P))
    FAIL(env, "%s: gradients and logprobs must not share memory with params or with each other", fn);
  for (int64_t n = 0; n < N; n++) {
    if (in.inputs[n] < 0 || in.inputs[n] >= s.vocab)
      FAIL(env, "%s: inputs[%lld] = %d is outside the vocabulary [0, %lld)", fn, (long long)n, in.inputs[n],
           (long long)s.vocab);
    if (in.targets[n] < 0 || in.targets[n] >= s.vocab)
      FAIL(env, "%s: targets[%lld] = %d is outside the vocabulary [0, %lld)", fn, (long long)n, in.targets[n],
           (long long)s.vocab);
    if (!isfinite(in.weights[n])) FAIL(env, "%s: weights[%lld] is not finite", fn, (long long)n);
  }

  Buffers b;
  Carver counter = {NULL, 0};
  const uint64_t floats = layout(&counter, &s, &b, NULL);
  if (floats > max_arena_floats)
    FAIL(env, "%s: %llu MiB of activations exceed the %llu MiB limit; use fewer rows per call", fn,
         (unsigned long long)(floats >> 18), (unsigned long long)(max_arena_floats >> 18));
  if (!arena_reserve(arena, floats, 8 * (uint64_t)s.width, (uint64_t)s.layers))
    FAIL(env, "%s: cannot allocate %llu MiB of activations", fn, (unsigned long long)(floats >> 18));
  Carver carver = {arena->floats, 0};
  layout(&carver, &s, &b, arena->layers);
  memset(b.gradients, 0, (size_t)P * sizeof(float));

  forward(&in, &s, &b, arena->layers);
  const double loss = loss_and_logit_gradient(&in, &s, &b);
  if (!isfinite(loss) || first_non_finite(b.logprobs, N) >= 0) {
    char message[320];
    describe_forward_failure(message, sizeof message, &in, &s, &b, arena->layers, loss);
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  backward(&in, &s, &b, arena->layers, arena->doubles);
  // The gradient is checked tensor by tensor in backward order: the first one named is the first computed.
  const int64_t tensors = 2 + LayerTensors * s.layers + 3;
  for (int64_t i = tensors - 1; i >= 0; i--) {
    char name[64];
    int64_t offset, count;
    parameter_tensor(&s, i, name, sizeof name, &offset, &count);
    if (first_non_finite(b.gradients + offset, count) >= 0)
      FAIL(env, "%s: non-finite gradient (the loss is %g), first in %s (in backward order)", fn, loss, name);
  }
  for (int64_t i = 0; i < P; i++) gradients[i] += b.gradients[i];
  memcpy(logprobs, b.logprobs, (size_t)N * sizeof(float));
  napi_value result;
  if (napi_create_double(env, loss, &result) != napi_ok) FAIL(env, "%s: cannot return the loss", fn);
  return result;
}

void register_model(napi_env env, napi_value exports) {
  Arena *arena = calloc(1, sizeof(Arena));
  if (!arena) return;
  if (napi_add_env_cleanup_hook(env, arena_free, arena) != napi_ok) {
    free(arena);
    return;
  }
  napi_property_descriptor properties[] = {
      {"modelForwardBackward", NULL, model_forward_backward, NULL, NULL, NULL, napi_enumerable, arena},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
