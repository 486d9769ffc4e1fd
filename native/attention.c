// Native kernels of the KV-cached sampler's decoding step (src/policy/sampler-native.ts), in place on the
// wasm heap like the matmul kernels of curricula_native.c:
//
// - decodeAttention: writes each row's new key and value into the cache and attends over the cache,
//   skipping the masked columns, in one call per layer (the tfjs path is a broadcast multiply + sum for
//   the scores, a softmax, and another multiply + sum over every column, padding and unwritten ones
//   included, after a dataSync copy of qkv to write the column from JavaScript).
// - standardiseRows: (x - mean) / sqrt(var + eps) over each row (the LayerNorm without its gain and bias,
//   which the sampler folds into the next matmul): one pass instead of seven tfjs ops.
// - geluTanh: 0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))), one op instead of six.
//
// Every range is checked against the heap's length before anything is read or written, so a wrong offset
// throws a JavaScript error instead of corrupting memory. Self-contained: it shares no helper with
// curricula_native.c (register_attention is its only entry point).
#include <math.h>
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

// decodeAttention(heap, qkvOffset, rows, heads, headSize, keysOffset, valuesOffset, capacity, column,
//                 pads, outOffset)
//
// qkv [R, 3d] (columns q | k | v, q pre-scaled by 1/sqrt(hd)), keys [R, H, C, hd], values transposed
// [R, H, hd, C], out [R, d], all float32 in `heap`; pads an Int32Array of R entries. For every row r:
// writes k and v of qkv into column `column` of the cache, then for every head h
//   out[r, h·hd + i] = Σ_c softmax_c(q·K[c]) · V[i, c]   over c in [pads[r], column]
// (the columns the tfjs path leaves unmasked; the masked ones contribute exactly 0 there too).
static napi_value decode_attention(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 11)
    ATT_THROW(env, "curricula_native.decodeAttention: expected 11 arguments");
  uint8_t *heap;
  size_t heap_length;
  if (!att_heap(env, argv[0], &heap, &heap_length))
    ATT_THROW(env, "curricula_native.decodeAttention: heap must be a Uint8Array");
  int64_t v[8];
  if (!att_ints(env, argv, 1, 8, v)) ATT_THROW(env, "curricula_native.decodeAttention: expected a number");
  int64_t out_offset;
  if (napi_get_value_int64(env, argv[10], &out_offset) != napi_ok)
    ATT_THROW(env, "curricula_native.decodeAttention: expected a number");
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

  for (int64_t r = 0; r < rows; r++) {
    const float *row = qkv + r * 3 * d;
    const int64_t first = pads[r];
    for (int64_t h = 0; h < heads; h++) {
      const float *q = row + h * head_size;
      const float *k_new = row + d + h * head_size;
      const float *v_new = row + 2 * d + h * head_size;
      float *key_block = keys + (r * heads + h) * capacity * head_size;     // [C, hd]
      float *value_block = values + (r * heads + h) * head_size * capacity; // [hd, C]
      memcpy(key_block + column * head_size, k_new, (size_t)head_size * sizeof(float));
      for (int64_t i = 0; i < head_size; i++) value_block[i * capacity + column] = v_new[i];

      float max = -INFINITY;
      for (int64_t c = first; c <= column; c++) {
        const float s = att_dot(q, key_block + c * head_size, head_size);
        scores[c] = s;
        if (s > max) max = s;
      }
      float total = 0;
      for (int64_t c = first; c <= column; c++) {
        scores[c] = expf(scores[c] - max);
        total += scores[c];
      }
      const float scale = 1.0f / total;
      float *o = out + r * d + h * head_size;
      for (int64_t i = 0; i < head_size; i++) {
        const float *value = value_block + i * capacity;
        o[i] = att_dot(scores + first, value + first, column + 1 - first) * scale;
      }
    }
  }
  if (scores != stack_scores) free(scores);
  return NULL;
}

// standardiseRows(heap, xOffset, rows, width, outOffset): out = (x - mean) / sqrt(var + 1e-5) per row of
// a row-major [rows, width] float32 matrix (population variance, as LayerNorm). out may not alias x.
static napi_value standardise_rows(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5)
    ATT_THROW(env, "curricula_native.standardiseRows: expected 5 arguments");
  uint8_t *heap;
  size_t heap_length;
  if (!att_heap(env, argv[0], &heap, &heap_length))
    ATT_THROW(env, "curricula_native.standardiseRows: heap must be a Uint8Array");
  int64_t v[4];
  if (!att_ints(env, argv, 1, 4, v)) ATT_THROW(env, "curricula_native.standardiseRows: expected a number");
  const int64_t x_offset = v[0], rows = v[1], width = v[2], out_offset = v[3];
  if (rows < 0 || !att_size_ok(width) || rows > (1 << 20))
    ATT_THROW(env, "curricula_native.standardiseRows: sizes must be in [1, 2^20]");
  if (!att_in_heap(x_offset, rows * width, heap_length) || !att_in_heap(out_offset, rows * width, heap_length))
    ATT_THROW(env, "curricula_native.standardiseRows: operand outside the wasm heap");
  const float *x = (const float *)(heap + x_offset);
  float *out = (float *)(heap + out_offset);
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
  return NULL;
}

// geluTanh(heap, xOffset, count, outOffset): out = x·sigmoid(2u), u = sqrt(2/π)·(x + 0.044715·x³), which
// equals 0.5·x·(1 + tanh(u)), over `count` float32 values.
static napi_value gelu_tanh(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 4)
    ATT_THROW(env, "curricula_native.geluTanh: expected 4 arguments");
  uint8_t *heap;
  size_t heap_length;
  if (!att_heap(env, argv[0], &heap, &heap_length))
    ATT_THROW(env, "curricula_native.geluTanh: heap must be a Uint8Array");
  int64_t v[3];
  if (!att_ints(env, argv, 1, 3, v)) ATT_THROW(env, "curricula_native.geluTanh: expected a number");
  const int64_t x_offset = v[0], count = v[1], out_offset = v[2];
  if (count < 0 || count > ((int64_t)1 << 32)) ATT_THROW(env, "curricula_native.geluTanh: bad count");
  if (!att_in_heap(x_offset, count, heap_length) || !att_in_heap(out_offset, count, heap_length))
    ATT_THROW(env, "curricula_native.geluTanh: operand outside the wasm heap");
  const float *x = (const float *)(heap + x_offset);
  float *out = (float *)(heap + out_offset);
  const float c = 2.0f * 0.7978845608028654f; // 2·sqrt(2/π)
  for (int64_t i = 0; i < count; i++) {
    const float value = x[i];
    const float u2 = c * value * (1.0f + 0.044715f * value * value);
    out[i] = value / (1.0f + expf(-u2));
  }
  return NULL;
}

void register_attention(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"decodeAttention", NULL, decode_attention, NULL, NULL, NULL, napi_enumerable, NULL},
      {"standardiseRows", NULL, standardise_rows, NULL, NULL, NULL, napi_enumerable, NULL},
      {"geluTanh", NULL, gelu_tanh, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
