// Native kernels of the KV-cached sampler's decoding step (src/policy/sampler-native.ts), in place on the
// wasm heap like the matmul kernels of curricula_native.c:
//
// - decodeAttention: writes each row's new key and value into the cache and attends over the cache,
//   skipping the masked columns, in one call per layer (the tfjs path is a broadcast multiply + sum for
//   the scores, a softmax, and another multiply + sum over every column, padding and unwritten ones
//   included, after a dataSync copy of qkv to write the column from JavaScript).
// - samplerLinear: one linear layer of the sampler, x·W + b on OpenBLAS with what surrounds it fused:
//   the LayerNorm before it (standardise; its gain and bias are folded into W and b), GELU after it, or
//   the residual added to it. One call instead of one fused matmul with its three reshapes plus seven
//   tfjs ops for the LayerNorm, six for GELU, or one add.
//
// Every range is checked against the heap's length before anything is read or written, so a wrong offset
// throws a JavaScript error instead of corrupting memory. It shares no helper with curricula_native.c;
// besides register_attention, one row and head of the decoding attention (att_attend_head, attention.h)
// is also what the native model's decoding (model-decode.c) attends with.
#include <math.h>
#ifdef __SSE2__
#include <xmmintrin.h>
#include <emmintrin.h>
#endif
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"

#define ATT_THROW(env, message)                                                                        \
  do {                                                                                                 \
    napi_throw_error((env), NULL, (message));                                                          \
    return NULL;                                                                                       \
  } while (0)

// Reads argv[first .. first + count) as int64 into out; 0 if one is not a number.
static int att_ints(napi_env env, napi_value *argv, int first, int count, int64_t *out) {
  for (int i = 0; i < count; i++)
    if (napi_get_value_int64(env, argv[first + i], &out[i]) != napi_ok) return 0;
  return 1;
}

// The wasm heap (a Uint8Array over the WebAssembly memory) in argv[0]; 0 if it is not a Uint8Array.
static int att_heap(napi_env env, napi_value value, uint8_t **data, size_t *length) {
  napi_typedarray_type type;
  void *raw;
  if (napi_get_typedarray_info(env, value, &type, length, &raw, NULL, NULL) != napi_ok ||
      type != napi_uint8_array)
    return 0;
  *data = raw;
  return 1;
}

// True when [offset, offset + 4 * count) lies inside a heap of `length` bytes and is 4-byte aligned.
static int att_in_heap(int64_t offset, int64_t count, size_t length) {
  if (offset < 0 || count < 0 || (offset & 3) != 0) return 0;
  return (uint64_t)offset + 4 * (uint64_t)count <= (uint64_t)length;
}

// Sizes of one dimension: at most 2^20, so that a product of two stays far from int64 overflow.
static int att_size_ok(int64_t n) { return n > 0 && n <= (1 << 20); }

// e^x for float32 in straight-line code that the compiler vectorises (a libm expf call per element cost
// GELU most of its time): x = n·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its degree-6 Taylor polynomial
// (relative error < 3e-7), 2^n built in the exponent bits. x is clamped to [-87, 88], where float32 e^x
// stays normal and finite.
static inline float att_exp(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float shifter = 12582912.0f; // 1.5·2^23: adding and subtracting it rounds to an integer
  const float n = (x * 1.44269504088896341f + shifter) - shifter;
  const float r = (x - n * 0.693145751953125f) - n * 1.428606765330187e-06f; // ln 2 in two parts
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = ((int32_t)n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

#ifdef __SSE2__
// att_exp on four lanes with SSE2 intrinsics (x86-64 always has SSE2): GCC does not vectorise att_exp's
// loops by itself without -fno-trapping-math, and its vectorised form was slower. Measured: GELU over
// 32k values 145 → 37 µs.
static inline __m128 att_exp4(__m128 x) {
  x = _mm_min_ps(_mm_max_ps(x, _mm_set1_ps(-87.0f)), _mm_set1_ps(88.0f));
  const __m128 shifter = _mm_set1_ps(12582912.0f);
  const __m128 n = _mm_sub_ps(_mm_add_ps(_mm_mul_ps(x, _mm_set1_ps(1.44269504088896341f)), shifter), shifter);
  const __m128 r = _mm_sub_ps(_mm_sub_ps(x, _mm_mul_ps(n, _mm_set1_ps(0.693145751953125f))),
                              _mm_mul_ps(n, _mm_set1_ps(1.428606765330187e-06f)));
  __m128 p = _mm_set1_ps(1.0f / 720);
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(1.0f / 120));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(1.0f / 24));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(1.0f / 6));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(0.5f));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(1.0f));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(1.0f));
  const __m128i bits = _mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(n), _mm_set1_epi32(127)), 23);
  return _mm_mul_ps(p, _mm_castsi128_ps(bits));
}
#endif

// Σ a[i]·b[i] in eight interleaved partial sums, which the compiler turns into vector lanes (one running
// sum would pin it to the scalar order).
static inline float att_dot(const float *a, const float *b, int64_t n) {
  float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) partial[j] += a[i + j] * b[i + j];
  float total = 0;
  for (; i < n; i++) total += a[i] * b[i];
  for (int j = 0; j < 8; j++) total += partial[j];
  return total;
}

#ifdef __SSE2__
// The base model's head size, 32, with q and the output in SSE registers and four scores per horizontal
// reduction: 5-10% faster than the generic loops at batch 64 (measured; the loads dominate).

// scores[c] = q · K[c] for c in [first, column] four columns at a time; returns the first column left
// (fewer than four remain) and raises *max to the largest score.
static int64_t att_scores32(const float *q, const float *key_block, int64_t first, int64_t column,
                            float *scores, float *max) {
  __m128 qv[8];
  for (int i = 0; i < 8; i++) qv[i] = _mm_loadu_ps(q + 4 * i);
  __m128 top = _mm_set1_ps(-INFINITY);
  int64_t c = first;
  for (; c + 4 <= column + 1; c += 4) {
    __m128 sums[4];
    for (int j = 0; j < 4; j++) {
      const float *key = key_block + (c + j) * 32;
      __m128 a = _mm_add_ps(_mm_mul_ps(qv[0], _mm_loadu_ps(key)), _mm_mul_ps(qv[1], _mm_loadu_ps(key + 4)));
      __m128 b = _mm_add_ps(_mm_mul_ps(qv[2], _mm_loadu_ps(key + 8)), _mm_mul_ps(qv[3], _mm_loadu_ps(key + 12)));
      __m128 e = _mm_add_ps(_mm_mul_ps(qv[4], _mm_loadu_ps(key + 16)), _mm_mul_ps(qv[5], _mm_loadu_ps(key + 20)));
      __m128 f = _mm_add_ps(_mm_mul_ps(qv[6], _mm_loadu_ps(key + 24)), _mm_mul_ps(qv[7], _mm_loadu_ps(key + 28)));
      sums[j] = _mm_add_ps(_mm_add_ps(a, b), _mm_add_ps(e, f));
    }
    _MM_TRANSPOSE4_PS(sums[0], sums[1], sums[2], sums[3]);
    const __m128 four = _mm_add_ps(_mm_add_ps(sums[0], sums[1]), _mm_add_ps(sums[2], sums[3]));
    _mm_storeu_ps(scores + c, four);
    top = _mm_max_ps(top, four);
  }
  float lanes[4];
  _mm_storeu_ps(lanes, top);
  for (int j = 0; j < 4; j++)
    if (lanes[j] > *max) *max = lanes[j];
  return c;
}

// out = scale · Σ_c scores[c] · V[c] over c in [first, column], values [C, 32].
static void att_weighted_sum32(const float *scores, const float *value_block, int64_t first, int64_t column,
                               float scale, float *out) {
  __m128 sum[8];
  for (int i = 0; i < 8; i++) sum[i] = _mm_setzero_ps();
  for (int64_t c = first; c <= column; c++) {
    const __m128 p = _mm_set1_ps(scores[c]);
    const float *value = value_block + c * 32;
    for (int i = 0; i < 8; i++) sum[i] = _mm_add_ps(sum[i], _mm_mul_ps(p, _mm_loadu_ps(value + 4 * i)));
  }
  for (int i = 0; i < 8; i++) _mm_storeu_ps(out + 4 * i, _mm_mul_ps(sum[i], _mm_set1_ps(scale)));
}
#endif

// One row and head of decodeAttention: writes the new column, then out = softmax(q·K) · V over the
// columns [first, column]. Bound by memory at batch 64 (the cache of a layer is 8 MB at 128 columns and
// every element is read once per step), so plain -O3 code is as fast as AVX2/AVX-512 clones (measured).
// Values [C, hd] (not transposed) are read as one contiguous run: measured 30% faster than the 32 short
// strided runs of the transposed [hd, C] layout at batch 64 (420 → 305 µs per layer at column 64).
void att_attend_head(const float *row, int64_t d, int64_t h, int64_t head_size, float *key_block,
                     float *value_block, bool values_transposed, int64_t capacity, int64_t first, int64_t column,
                     float *scores, float *restrict out) {
  const float *q = row + h * head_size;
  const float *k_new = row + d + h * head_size;
  const float *v_new = row + 2 * d + h * head_size;
  memcpy(key_block + column * head_size, k_new, (size_t)head_size * sizeof(float)); // [C, hd]
  if (values_transposed)
    for (int64_t i = 0; i < head_size; i++) value_block[i * capacity + column] = v_new[i]; // [hd, C]
  else
    memcpy(value_block + column * head_size, v_new, (size_t)head_size * sizeof(float)); // [C, hd]
  float max = -INFINITY;
  int64_t c = first;
#ifdef __SSE2__
  if (head_size == 32) c = att_scores32(q, key_block, first, column, scores, &max);
#endif
  for (; c <= column; c++) {
    const float s = att_dot(q, key_block + c * head_size, head_size);
    scores[c] = s;
    if (s > max) max = s;
  }
  c = first;
#ifdef __SSE2__
  for (; c + 4 <= column + 1; c += 4)
    _mm_storeu_ps(scores + c, att_exp4(_mm_sub_ps(_mm_loadu_ps(scores + c), _mm_set1_ps(max))));
#endif
  for (; c <= column; c++) scores[c] = att_exp(scores[c] - max);
  float total = 0;
  for (c = first; c <= column; c++) total += scores[c];
  const float scale = 1.0f / total;
  if (values_transposed) {
    for (int64_t i = 0; i < head_size; i++)
      out[i] = att_dot(scores + first, value_block + i * capacity + first, column + 1 - first) * scale;
    return;
  }
#ifdef __SSE2__
  if (head_size == 32) {
    att_weighted_sum32(scores, value_block, first, column, scale, out);
    return;
  }
#endif
  for (int64_t i = 0; i < head_size; i++) out[i] = 0;
  for (c = first; c <= column; c++) {
    const float p = scores[c];
    const float *value = value_block + c * head_size;
    for (int64_t i = 0; i < head_size; i++) out[i] += p * value[i];
  }
  for (int64_t i = 0; i < head_size; i++) out[i] *= scale;
}

// decodeAttention(heap, qkvOffset, rows, heads, headSize, keysOffset, valuesOffset, capacity, column,
//                 pads, outOffset, valuesTransposed)
//
// qkv [R, 3d] (columns q | k | v, q pre-scaled by 1/sqrt(hd)), keys [R, H, C, hd], values [R, H, C, hd]
// or, when valuesTransposed, [R, H, hd, C], out [R, d], all float32 in `heap`; pads an Int32Array of R
// entries. For every row r:
// writes k and v of qkv into column `column` of the cache, then for every head h
//   out[r, h·hd + i] = Σ_c softmax_c(q·K[c]) · V[i, c]   over c in [pads[r], column]
// (the columns the tfjs path leaves unmasked; the masked ones contribute exactly 0 there too).
static napi_value decode_attention(napi_env env, napi_callback_info info) {
  size_t argc = 12;
  napi_value argv[12];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 12)
    ATT_THROW(env, "curricula_native.decodeAttention: expected 12 arguments");
  uint8_t *heap;
  size_t heap_length;
  if (!att_heap(env, argv[0], &heap, &heap_length))
    ATT_THROW(env, "curricula_native.decodeAttention: heap must be a Uint8Array");
  int64_t v[8];
  if (!att_ints(env, argv, 1, 8, v)) ATT_THROW(env, "curricula_native.decodeAttention: expected a number");
  int64_t out_offset;
  bool values_transposed;
  if (napi_get_value_int64(env, argv[10], &out_offset) != napi_ok ||
      napi_get_value_bool(env, argv[11], &values_transposed) != napi_ok)
    ATT_THROW(env, "curricula_native.decodeAttention: bad argument");
  const int64_t qkv_offset = v[0], rows = v[1], heads = v[2], head_size = v[3];
  const int64_t keys_offset = v[4], values_offset = v[5], capacity = v[6], column = v[7];
  if (!att_size_ok(rows) || !att_size_ok(heads) || !att_size_ok(head_size) || !att_size_ok(capacity))
    ATT_THROW(env, "curricula_native.decodeAttention: sizes must be in [1, 2^20]");
  if ((double)rows * (double)heads * (double)capacity * (double)head_size > 1099511627776.0)
    ATT_THROW(env, "curricula_native.decodeAttention: cache beyond 2^40 elements");
  if (column < 0 || column >= capacity)
    ATT_THROW(env, "curricula_native.decodeAttention: column outside the cache's capacity");

  napi_typedarray_type pads_type;
  size_t pads_length;
  void *pads_raw;
  if (napi_get_typedarray_info(env, argv[9], &pads_type, &pads_length, &pads_raw, NULL, NULL) != napi_ok ||
      pads_type != napi_int32_array || (int64_t)pads_length != rows)
    ATT_THROW(env, "curricula_native.decodeAttention: pads must be an Int32Array of one entry per row");
  const int32_t *pads = pads_raw;
  for (int64_t r = 0; r < rows; r++)
    if (pads[r] < 0 || pads[r] > column)
      ATT_THROW(env, "curricula_native.decodeAttention: a row's padding is not in [0, column]");

  const int64_t d = heads * head_size;
  const int64_t cache_size = rows * heads * capacity * head_size;
  if (!att_in_heap(qkv_offset, rows * 3 * d, heap_length) ||
      !att_in_heap(keys_offset, cache_size, heap_length) ||
      !att_in_heap(values_offset, cache_size, heap_length) ||
      !att_in_heap(out_offset, rows * d, heap_length))
    ATT_THROW(env, "curricula_native.decodeAttention: operand outside the wasm heap");

  const float *qkv = (const float *)(heap + qkv_offset);
  float *keys = (float *)(heap + keys_offset);
  float *values = (float *)(heap + values_offset);
  float *out = (float *)(heap + out_offset);
  // One score per cache column: on the stack up to 1,024 columns, else on the C heap.
  float stack_scores[1024];
  float *scores = capacity <= 1024 ? stack_scores : malloc((size_t)capacity * sizeof(float));
  if (!scores) ATT_THROW(env, "curricula_native.decodeAttention: out of memory");

  for (int64_t r = 0; r < rows; r++)
    for (int64_t h = 0; h < heads; h++)
      att_attend_head(qkv + r * 3 * d, d, h, head_size, keys + (r * heads + h) * capacity * head_size,
                  values + (r * heads + h) * head_size * capacity, values_transposed, capacity, pads[r],
                  column, scores, out + r * d + h * head_size);
  if (scores != stack_scores) free(scores);
  return NULL;
}

extern void cblas_sgemm(int order, int transA, int transB, int m, int n, int k, float alpha, const float *a,
                        int lda, const float *b, int ldb, float beta, float *c, int ldc);
enum { AttRowMajor = 101, AttNoTrans = 111 };

// Standardises each row of x [rows, width] into out (may not alias): LayerNorm without gain and bias.
static void att_standardise(const float *x, int64_t rows, int64_t width, float *out) {
  for (int64_t r = 0; r < rows; r++) {
    const float *row = x + r * width;
    float *target = out + r * width;
    float sum = 0;
    for (int64_t j = 0; j < width; j++) sum += row[j];
    const float mean = sum / (float)width;
    float squares = 0;
    for (int64_t j = 0; j < width; j++) {
      const float centred = row[j] - mean;
      squares += centred * centred;
    }
    const float scale = 1.0f / sqrtf(squares / (float)width + 1e-5f);
    for (int64_t j = 0; j < width; j++) target[j] = (row[j] - mean) * scale;
  }
}

// GELU (tanh approximation) of `count` values (out may alias x): x·sigmoid(2u) = x / (1 + e^(-2u)),
// u = sqrt(2/π)·(x + 0.044715·x³).
static void att_gelu(const float *x, int64_t count, float *out) {
  const float c = 2.0f * 0.7978845608028654f; // 2·sqrt(2/π)
  int64_t i = 0;
#ifdef __SSE2__
  for (; i + 4 <= count; i += 4) {
    const __m128 v = _mm_loadu_ps(x + i);
    const __m128 cubic = _mm_add_ps(_mm_set1_ps(1.0f), _mm_mul_ps(_mm_set1_ps(0.044715f), _mm_mul_ps(v, v)));
    const __m128 e = att_exp4(_mm_mul_ps(_mm_mul_ps(_mm_set1_ps(-c), v), cubic));
    _mm_storeu_ps(out + i, _mm_div_ps(v, _mm_add_ps(_mm_set1_ps(1.0f), e)));
  }
#endif
  for (; i < count; i++) {
    const float value = x[i];
    out[i] = value / (1.0f + att_exp(-c * value * (1.0f + 0.044715f * value * value)));
  }
}

// samplerLinear(heap, xOffset, rows, inner, standardise, wOffset, cols, biasOffset, residualOffset, gelu,
//               outOffset)
//
// One linear layer of the sampler's forward, float32 row-major in `heap`:
//   out [rows, cols] = act(s(x) · W + bias) + residual
// x [rows, inner], W [inner, cols], bias [cols]; s standardises each row of x when `standardise` (the
// LayerNorm whose gain and bias are folded into W and bias), act is GELU when `gelu`, and residual
// [rows, cols] (residualOffset ≥ 0) is added last. GELU and a residual together are refused.
static napi_value sampler_linear(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 11)
    ATT_THROW(env, "curricula_native.samplerLinear: expected 11 arguments");
  uint8_t *heap;
  size_t heap_length;
  if (!att_heap(env, argv[0], &heap, &heap_length))
    ATT_THROW(env, "curricula_native.samplerLinear: heap must be a Uint8Array");
  int64_t x_offset, rows, inner, w_offset, cols, bias_offset, residual_offset, out_offset;
  bool standardise, gelu;
  if (napi_get_value_int64(env, argv[1], &x_offset) != napi_ok ||
      napi_get_value_int64(env, argv[2], &rows) != napi_ok ||
      napi_get_value_int64(env, argv[3], &inner) != napi_ok ||
      napi_get_value_bool(env, argv[4], &standardise) != napi_ok ||
      napi_get_value_int64(env, argv[5], &w_offset) != napi_ok ||
      napi_get_value_int64(env, argv[6], &cols) != napi_ok ||
      napi_get_value_int64(env, argv[7], &bias_offset) != napi_ok ||
      napi_get_value_int64(env, argv[8], &residual_offset) != napi_ok ||
      napi_get_value_bool(env, argv[9], &gelu) != napi_ok ||
      napi_get_value_int64(env, argv[10], &out_offset) != napi_ok)
    ATT_THROW(env, "curricula_native.samplerLinear: bad argument");
  if (rows < 1 || rows > (1 << 24) || !att_size_ok(inner) || !att_size_ok(cols))
    ATT_THROW(env, "curricula_native.samplerLinear: sizes out of range");
  if (gelu && residual_offset >= 0)
    ATT_THROW(env, "curricula_native.samplerLinear: GELU and a residual together");
  if (!att_in_heap(x_offset, rows * inner, heap_length) || !att_in_heap(w_offset, inner * cols, heap_length) ||
      !att_in_heap(bias_offset, cols, heap_length) || !att_in_heap(out_offset, rows * cols, heap_length) ||
      (residual_offset >= 0 && !att_in_heap(residual_offset, rows * cols, heap_length)))
    ATT_THROW(env, "curricula_native.samplerLinear: operand outside the wasm heap");
  const float *x = (const float *)(heap + x_offset);
  const float *w = (const float *)(heap + w_offset);
  const float *bias = (const float *)(heap + bias_offset);
  const float *residual = residual_offset >= 0 ? (const float *)(heap + residual_offset) : NULL;
  float *out = (float *)(heap + out_offset);
  float *scratch = NULL;
  if (standardise) {
    scratch = malloc((size_t)(rows * inner) * sizeof(float));
    if (!scratch) ATT_THROW(env, "curricula_native.samplerLinear: out of memory");
    att_standardise(x, rows, inner, scratch);
    x = scratch;
  }
  for (int64_t r = 0; r < rows; r++) {
    float *target = out + r * cols;
    if (residual) {
      const float *from = residual + r * cols;
      for (int64_t j = 0; j < cols; j++) target[j] = from[j] + bias[j];
    } else {
      memcpy(target, bias, (size_t)cols * sizeof(float));
    }
  }
  cblas_sgemm(AttRowMajor, AttNoTrans, AttNoTrans, (int)rows, (int)cols, (int)inner, 1.0f, x, (int)inner, w,
              (int)cols, 1.0f, out, (int)cols);
  if (gelu) att_gelu(out, rows * cols, out);
  free(scratch);
  return NULL;
}

void register_attention(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"decodeAttention", NULL, decode_attention, NULL, NULL, NULL, napi_enumerable, NULL},
      {"samplerLinear", NULL, sampler_linear, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
