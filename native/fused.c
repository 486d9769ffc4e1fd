// Fused native kernels for the policy's elementwise-heavy layers (src/policy/native-fused.ts): LayerNorm
// forward and backward, tanh-GELU forward and backward, the attention softmax with its additive mask and
// the softmax backward, and the Adam/AdamW update. tfjs composes each of these from 4-12 wasm kernels, one
// pass over memory per kernel; here each is one pass (or two) over rows of the wasm heap.
//
// As in curricula_native.c: JavaScript passes the WebAssembly memory as a Uint8Array plus byte offsets of
// the operands, after allocating the outputs (an allocation may grow the memory and replace its buffer).
// Every range is checked against the heap before it is touched, so a wrong offset is a JavaScript error,
// never memory corruption. Outputs are always fresh tensors, never inputs (tfjs tensors are immutable and
// the wasm Identity kernel shares data between tensors), which is why the loops may use `restrict`.
#include <math.h>
#include <node_api.h>
#include <stdint.h>
#include <string.h>

#include "fast-math.h"

// The Adam update matches the JavaScript float64 loop it replaces operation for operation: GCC does not
// contract a·b + c into an FMA under -std=c11 (-ffp-contract=off), and neither baseline x86-64 nor the
// "avx2" clones below (no "fma" target) have FMA instructions anyway.

#define FAIL(env, message)                                                                             \
  do {                                                                                                 \
    napi_throw_error((env), NULL, (message));                                                          \
    return NULL;                                                                                       \
  } while (0)

// Reads exactly `count` arguments: argv[0] must be a Uint8Array (the wasm heap), the others numbers except
// those whose bit is set in `not_numbers`. 0 (with a thrown error) if they are not.
static int fused_args(napi_env env, napi_callback_info info, size_t count, napi_value *argv, uint8_t **heap,
                      size_t *heap_length, double *numbers, uint32_t not_numbers) {
  size_t argc = count;
  napi_typedarray_type type;
  void *raw;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != count) {
    napi_throw_error(env, NULL, "curricula_native fused kernel: wrong number of arguments");
    return 0;
  }
  if (napi_get_typedarray_info(env, argv[0], &type, heap_length, &raw, NULL, NULL) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_error(env, NULL, "curricula_native fused kernel: heap must be a Uint8Array");
    return 0;
  }
  *heap = raw;
  for (size_t i = 1; i < count; i++) {
    if ((not_numbers >> i) & 1) continue;
    if (napi_get_value_double(env, argv[i], &numbers[i]) != napi_ok) {
      napi_throw_error(env, NULL, "curricula_native fused kernel: expected a number");
      return 0;
    }
  }
  return 1;
}

// True for a non-negative integer below 2^53.
static int is_count(double value) { return value >= 0 && value <= 9007199254740992.0 && value == floor(value); }

// The float32 array of `count` elements at byte `offset` of the heap, or NULL when that range is not
// inside the heap (or not 4-byte aligned, or the arguments are not integers).
static float *heap_floats(uint8_t *heap, size_t length, double offset, double count) {
  if (!is_count(offset) || !is_count(count)) return NULL;
  const uint64_t start = (uint64_t)offset, n = (uint64_t)count;
  if ((start & 3) != 0 || n > length / 4 || start > length - 4 * n) return NULL;
  return (float *)(heap + start);
}

#define HEAP_FLOATS(name, offset, count)                                                               \
  float *name = heap_floats(heap, heap_length, (offset), (count));                                     \
  if (!name) FAIL(env, "curricula_native fused kernel: operand outside the wasm heap")

// Reductions over a row in 8 interleaved lanes, which GCC vectorises (a single running max or sum is a
// serial dependency it may not reorder). The order of the additions differs from a plain loop's only by
// float32 rounding.
enum { Lanes = 8 };

static inline float row_max(const float *restrict z, int64_t n) {
  float lanes[Lanes];
  for (int k = 0; k < Lanes; k++) lanes[k] = -INFINITY;
  int64_t j = 0;
  for (; j + Lanes <= n; j += Lanes)
    for (int k = 0; k < Lanes; k++) lanes[k] = z[j + k] > lanes[k] ? z[j + k] : lanes[k];
  float max = -INFINITY;
  for (int k = 0; k < Lanes; k++) max = lanes[k] > max ? lanes[k] : max;
  for (; j < n; j++) max = z[j] > max ? z[j] : max;
  return max;
}

static inline float row_dot(const float *restrict a, const float *restrict b, int64_t n) {
  float lanes[Lanes] = {0};
  int64_t j = 0;
  for (; j + Lanes <= n; j += Lanes)
    for (int k = 0; k < Lanes; k++) lanes[k] += a[j + k] * b[j + k];
  float sum = 0;
  for (int k = 0; k < Lanes; k++) sum += lanes[k];
  for (; j < n; j++) sum += a[j] * b[j];
  return sum;
}

static inline float row_sum(const float *restrict z, int64_t n) {
  float lanes[Lanes] = {0};
  int64_t j = 0;
  for (; j + Lanes <= n; j += Lanes)
    for (int k = 0; k < Lanes; k++) lanes[k] += z[j + k];
  float sum = 0;
  for (int k = 0; k < Lanes; k++) sum += lanes[k];
  for (; j < n; j++) sum += z[j];
  return sum;
}

// The elementwise loops, compiled twice on x86-64 (AVX2 and baseline SSE2, picked when the addon loads):
// 8 floats per instruction instead of 4. No "fma" in the target, so no contraction either way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WIDE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_CLONES
#endif

WIDE_CLONES static void gelu_loop(const float *restrict x, int64_t n, float *restrict out) {
  for (int64_t i = 0; i < n; i++) out[i] = x[i] * gelu_gate(x[i]);
}

// dx = dy · (s + x·s·(1 − s)·2·sqrt(2/π)·(1 + 3c·x²)).
WIDE_CLONES static void gelu_grad_loop(const float *restrict dy, const float *restrict x, int64_t n,
                                       float *restrict dx) {
  for (int64_t i = 0; i < n; i++) {
    const float xi = x[i], s = gelu_gate(xi);
    const float slope = (xi * xi * (3.0f * gelu_cubic) + 1.0f) * gelu_scale;
    dx[i] = dy[i] * (s + xi * (s * (1.0f - s)) * slope);
  }
}

WIDE_CLONES static void masked_softmax_loop(const float *restrict x, const float *restrict mask, int64_t outer,
                                            int64_t rows, int64_t n, float *restrict out) {
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t t = 0; t < rows; t++) {
      const float *restrict xr = x + (o * rows + t) * n;
      const float *restrict mr = mask + t * n;
      float *restrict yr = out + (o * rows + t) * n;
      for (int64_t j = 0; j < n; j++) yr[j] = xr[j] + mr[j];
      const float max = row_max(yr, n);
      for (int64_t j = 0; j < n; j++) yr[j] = exp_nonpositive(yr[j] - max);
      const float inverse = 1.0f / row_sum(yr, n);
      for (int64_t j = 0; j < n; j++) yr[j] *= inverse;
    }
  }
}

WIDE_CLONES static void softmax_grad_loop(const float *restrict dy, const float *restrict y, int64_t rows,
                                          int64_t n, float *restrict dx) {
  for (int64_t row = 0; row < rows; row++) {
    const float *restrict dyr = dy + row * n;
    const float *restrict yr = y + row * n;
    float *restrict dxr = dx + row * n;
    const float dot = row_dot(dyr, yr, n);
    for (int64_t j = 0; j < n; j++) dxr[j] = (dyr[j] - dot) * yr[j];
  }
}

// LayerNorm per row: x̂ = (x − mean) · r, r = 1 / sqrt(var + epsilon), y = x̂ · weight + bias; r into r_out.
WIDE_CLONES static void layer_norm_rows(const float *restrict x, const float *restrict weight,
                                        const float *restrict bias, int64_t rows, int64_t n, float epsilon,
                                        float *restrict out, float *restrict x_hat, float *restrict r_out) {
  for (int64_t row = 0; row < rows; row++) {
    const float *restrict xr = x + row * n;
    float *restrict yr = out + row * n;
    float *restrict hr = x_hat + row * n;
    const float mean = row_sum(xr, n) / (float)n;
    for (int64_t j = 0; j < n; j++) hr[j] = xr[j] - mean;
    const float r = 1.0f / sqrtf(row_dot(hr, hr, n) / (float)n + epsilon);
    r_out[row] = r;
    for (int64_t j = 0; j < n; j++) {
      hr[j] *= r;
      yr[j] = hr[j] * weight[j] + bias[j];
    }
  }
}

// LayerNorm backward over rows; d_weight and d_bias are accumulated (the caller zeroes them).
WIDE_CLONES static void layer_norm_grad_rows(const float *restrict dy, const float *restrict x_hat,
                                             const float *restrict r, const float *restrict weight, int64_t rows,
                                             int64_t n, float *restrict dx, float *restrict d_weight,
                                             float *restrict d_bias) {
  for (int64_t row = 0; row < rows; row++) {
    const float *restrict dyr = dy + row * n;
    const float *restrict hr = x_hat + row * n;
    float *restrict dxr = dx + row * n;
    for (int64_t j = 0; j < n; j++) dxr[j] = dyr[j] * weight[j]; // g
    const float g_mean = row_sum(dxr, n) / (float)n, gh_mean = row_dot(dxr, hr, n) / (float)n;
    const float rr = r[row];
    for (int64_t j = 0; j < n; j++) {
      dxr[j] = (dxr[j] - g_mean - hr[j] * gh_mean) * rr;
      d_weight[j] += dyr[j] * hr[j];
      d_bias[j] += dyr[j];
    }
  }
}

// layerNorm(heap, xOffset, weightOffset, biasOffset, rows, width, epsilon, outOffset, xHatOffset, rOffset)
// Per row of x [rows, width]: x̂ = (x − mean) · r with r = 1 / sqrt(var + epsilon) (biased variance),
// out = x̂ · weight + bias. Saves x̂ [rows, width] and r [rows] for the backward pass.
static napi_value layer_norm(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  double a[10];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 10, argv, &heap, &heap_length, a, 0)) return NULL;
  const double rows = a[4], width = a[5];
  if (!is_count(rows) || !is_count(width) || width < 1) FAIL(env, "curricula_native.layerNorm: bad size");
  HEAP_FLOATS(x, a[1], rows * width);
  HEAP_FLOATS(weight, a[2], width);
  HEAP_FLOATS(bias, a[3], width);
  HEAP_FLOATS(out, a[7], rows * width);
  HEAP_FLOATS(x_hat, a[8], rows * width);
  HEAP_FLOATS(r_out, a[9], rows);
  layer_norm_rows(x, weight, bias, (int64_t)rows, (int64_t)width, (float)a[6], out, x_hat, r_out);
  return NULL;
}

// layerNormGrad(heap, dyOffset, xHatOffset, rOffset, weightOffset, rows, width, dxOffset, dWeightOffset,
//               dBiasOffset)
// With g = dy · weight per row: dx = r · (g − mean(g) − x̂ · mean(g · x̂)); dweight = Σ_rows dy · x̂;
// dbias = Σ_rows dy (the standard LayerNorm backward, as layers.ts writes it with tfjs ops).
static napi_value layer_norm_grad(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  double a[10];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 10, argv, &heap, &heap_length, a, 0)) return NULL;
  const double rows = a[5], width = a[6];
  if (!is_count(rows) || !is_count(width) || width < 1) FAIL(env, "curricula_native.layerNormGrad: bad size");
  HEAP_FLOATS(dy, a[1], rows * width);
  HEAP_FLOATS(x_hat, a[2], rows * width);
  HEAP_FLOATS(r, a[3], rows);
  HEAP_FLOATS(weight, a[4], width);
  HEAP_FLOATS(dx, a[7], rows * width);
  HEAP_FLOATS(d_weight, a[8], width);
  HEAP_FLOATS(d_bias, a[9], width);
  memset(d_weight, 0, (size_t)width * sizeof(float));
  memset(d_bias, 0, (size_t)width * sizeof(float));
  layer_norm_grad_rows(dy, x_hat, r, weight, (int64_t)rows, (int64_t)width, dx, d_weight, d_bias);
  return NULL;
}

// gelu(heap, xOffset, count, outOffset)
static napi_value gelu(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  double a[4];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 4, argv, &heap, &heap_length, a, 0)) return NULL;
  HEAP_FLOATS(x, a[1], a[2]);
  HEAP_FLOATS(out, a[3], a[2]);
  gelu_loop(x, (int64_t)a[2], out);
  return NULL;
}

// geluGrad(heap, dyOffset, xOffset, count, dxOffset): dx = dy · (s + x·s·(1 − s)·2·sqrt(2/π)·(1 + 3c·x²)).
static napi_value gelu_grad(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  double a[5];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 5, argv, &heap, &heap_length, a, 0)) return NULL;
  HEAP_FLOATS(dy, a[1], a[3]);
  HEAP_FLOATS(x, a[2], a[3]);
  HEAP_FLOATS(dx, a[4], a[3]);
  gelu_grad_loop(dy, x, (int64_t)a[3], dx);
  return NULL;
}

// maskedSoftmax(heap, xOffset, maskOffset, outer, rows, width, outOffset)
// x is [outer, rows, width], mask (additive) [rows, width], shared by every outer index:
// out = softmax(x + mask) over the last axis, with the maximum subtracted first.
static napi_value masked_softmax(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  double a[7];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 7, argv, &heap, &heap_length, a, 0)) return NULL;
  const double outer = a[3], rows = a[4], width = a[5];
  if (!is_count(outer) || !is_count(rows) || !is_count(width) || width < 1)
    FAIL(env, "curricula_native.maskedSoftmax: bad size");
  HEAP_FLOATS(x, a[1], outer * rows * width);
  HEAP_FLOATS(mask, a[2], rows * width);
  HEAP_FLOATS(out, a[6], outer * rows * width);
  masked_softmax_loop(x, mask, (int64_t)outer, (int64_t)rows, (int64_t)width, out);
  return NULL;
}

// softmaxGrad(heap, dyOffset, yOffset, rows, width, dxOffset): per row, dx = y · (dy − Σ dy·y), the
// gradient of softmax over the last axis given its output y.
static napi_value softmax_grad(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  double a[6];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 6, argv, &heap, &heap_length, a, 0)) return NULL;
  const double rows = a[3], width = a[4];
  if (!is_count(rows) || !is_count(width)) FAIL(env, "curricula_native.softmaxGrad: bad size");
  HEAP_FLOATS(dy, a[1], rows * width);
  HEAP_FLOATS(y, a[2], rows * width);
  HEAP_FLOATS(dx, a[5], rows * width);
  softmax_grad_loop(dy, y, (int64_t)rows, (int64_t)width, dx);
  return NULL;
}

// sumSquares(heap, offset, count, start) → start + Σ x² accumulated in double in index order (the squared
// gradient norm, continued tensor after tensor exactly as optimizer.ts's loop does).
static napi_value sum_squares(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  double a[4];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 4, argv, &heap, &heap_length, a, 0)) return NULL;
  HEAP_FLOATS(x, a[1], a[2]);
  double sum = a[3];
  for (int64_t i = 0; i < (int64_t)a[2]; i++) sum += (double)x[i] * x[i];
  napi_value result;
  if (napi_create_double(env, sum, &result) != napi_ok) FAIL(env, "curricula_native.sumSquares: no result");
  return result;
}

// A Float32Array argument of at least `count` elements (the optimizer's moments, in JavaScript memory).
static float *moments(napi_env env, napi_value value, double count) {
  napi_typedarray_type type;
  size_t length;
  void *raw;
  if (napi_get_typedarray_info(env, value, &type, &length, &raw, NULL, NULL) != napi_ok ||
      type != napi_float32_array || !is_count(count) || (double)length < count)
    return NULL;
  return raw;
}

// One loop per case (with and without a gradient) so that each vectorises: always inlined into the two
// callers below, the `grad` test is resolved at compile time. AVX2 without FMA: every operation is the
// same correctly rounded double operation as in JavaScript, 4 at a time.
static inline __attribute__((always_inline)) void adam_loop(
    const float *restrict param, const float *restrict grad, int64_t n, float *restrict out, float *restrict m,
    float *restrict v, double beta1, double beta2, double clip_scale, double decay, double step_size,
    double second_correction, double eps) {
  for (int64_t i = 0; i < n; i++) {
    const double g = grad ? grad[i] * clip_scale : 0;
    const double mi = beta1 * m[i] + (1 - beta1) * g;
    const double vi = beta2 * v[i] + (1 - beta2) * g * g;
    m[i] = (float)mi;
    v[i] = (float)vi;
    out[i] = (float)(param[i] * decay - (step_size * mi) / (sqrt(vi / second_correction) + eps));
  }
}

WIDE_CLONES static void adam_with_gradient(const float *restrict param, const float *restrict grad, int64_t n,
                                           float *restrict out, float *restrict m, float *restrict v, double beta1,
                                           double beta2, double clip_scale, double decay, double step_size,
                                           double second_correction, double eps) {
  adam_loop(param, grad, n, out, m, v, beta1, beta2, clip_scale, decay, step_size, second_correction, eps);
}

WIDE_CLONES static void adam_without_gradient(const float *restrict param, int64_t n, float *restrict out,
                                              float *restrict m, float *restrict v, double beta1, double beta2,
                                              double clip_scale, double decay, double step_size,
                                              double second_correction, double eps) {
  adam_loop(param, NULL, n, out, m, v, beta1, beta2, clip_scale, decay, step_size, second_correction, eps);
}

// adam(heap, paramOffset, gradOffset, count, outOffset, m, v, beta1, beta2, clipScale, decay, stepSize,
//      secondCorrection, eps)
// One AdamW step of optimizer.ts for one parameter, float64 per element as there: g = grad · clipScale
// (0 when gradOffset is −1), m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², out = p·decay −
// stepSize·m / (sqrt(v / secondCorrection) + eps). m and v (Float32Array) are updated in place; the
// parameter itself is not touched: out is a new tensor.
static napi_value adam(napi_env env, napi_callback_info info) {
  napi_value argv[14];
  double a[14];
  uint8_t *heap;
  size_t heap_length;
  if (!fused_args(env, info, 14, argv, &heap, &heap_length, a, (1u << 5) | (1u << 6))) return NULL;
  const double count = a[3];
  HEAP_FLOATS(param, a[1], count);
  HEAP_FLOATS(out, a[4], count);
  float *grad = NULL;
  if (a[2] != -1) {
    grad = heap_floats(heap, heap_length, a[2], count);
    if (!grad) FAIL(env, "curricula_native fused kernel: operand outside the wasm heap");
  }
  float *m = moments(env, argv[5], count), *v = moments(env, argv[6], count);
  if (!m || !v) FAIL(env, "curricula_native.adam: m and v must be Float32Arrays of the parameter's size");
  const double beta1 = a[7], beta2 = a[8], clip_scale = a[9], decay = a[10], step_size = a[11];
  const double second_correction = a[12], eps = a[13];
  const int64_t n = (int64_t)count;
  if (grad)
    adam_with_gradient(param, grad, n, out, m, v, beta1, beta2, clip_scale, decay, step_size, second_correction,
                       eps);
  else
    adam_without_gradient(param, n, out, m, v, beta1, beta2, clip_scale, decay, step_size, second_correction,
                          eps);
  return NULL;
}

void register_fused(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"layerNorm", NULL, layer_norm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"layerNormGrad", NULL, layer_norm_grad, NULL, NULL, NULL, napi_enumerable, NULL},
      {"gelu", NULL, gelu, NULL, NULL, NULL, napi_enumerable, NULL},
      {"geluGrad", NULL, gelu_grad, NULL, NULL, NULL, napi_enumerable, NULL},
      {"maskedSoftmax", NULL, masked_softmax, NULL, NULL, NULL, napi_enumerable, NULL},
      {"softmaxGrad", NULL, softmax_grad, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sumSquares", NULL, sum_squares, NULL, NULL, NULL, napi_enumerable, NULL},
      {"adam", NULL, adam, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
