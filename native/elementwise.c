// Elementwise float32 kernels for the wasm backend of tfjs, in place on the wasm heap (see
// src/policy/native-elementwise.ts): Add, Sub, Multiply, RealDiv with any broadcasting, and Sum, Mean and
// Max over the trailing axes.
//
// The stock wasm binary kernels handle a broadcast operand with a generic per-element index loop, and its
// reductions over the last axis are scalar loops; profiles of a train step and of KV-cached sampling put
// Multiply, Add, Sub and the last-axis Sum at a third of the time. Here each operation is one strided loop
// nest whose innermost loop has unit or zero strides, which the compiler vectorises; on x86-64 each hot
// function is also compiled for AVX2 and AVX-512 and picked at load time (target_clones).
//
// As in curricula_native.c, JavaScript passes the heap (a Uint8Array over the WebAssembly memory) and byte
// offsets, and every range is checked before it is read or written.
#include <stdint.h>
#include <string.h>

#include "heap.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef CLONES
#define CLONES
#endif

enum { OpAdd = 0, OpSub = 1, OpMul = 2, OpDiv = 3 };
enum { ReduceSum = 0, ReduceMean = 1, ReduceMax = 2 };
enum { MaxRank = 8 };

// out[i] = a[ia] OP b[ib] for every index i of `shape` (row-major, rank ≥ 1), with ia = Σ index·aStride
// and ib likewise. The innermost stride of each operand is 0 (broadcast) or 1; the output is contiguous
// and never one of the inputs (a and b may be the same tensor: Square is x·x).
#define DEFINE_BINARY(NAME, EXPR)                                                                      \
  CLONES static void NAME(const float *a, const float *b, float *restrict out, int rank,               \
                          const int64_t *shape, const int64_t *a_strides, const int64_t *b_strides) {  \
    const int64_t n = shape[rank - 1];                                                                 \
    const int a_unit = a_strides[rank - 1] != 0, b_unit = b_strides[rank - 1] != 0;                    \
    int64_t outer = 1;                                                                                 \
    for (int d = 0; d < rank - 1; d++) outer *= shape[d];                                              \
    int64_t index[MaxRank] = {0};                                                                      \
    int64_t a_at = 0, b_at = 0;                                                                        \
    for (int64_t o = 0; o < outer; o++) {                                                              \
      const float *restrict x = a + a_at;                                                              \
      const float *restrict y = b + b_at;                                                              \
      float *restrict z = out + o * n;                                                                 \
      if (a_unit && b_unit) {                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                              \
          const float p = x[j], q = y[j];                                                              \
          z[j] = (EXPR);                                                                               \
        }                                                                                              \
      } else if (a_unit) {                                                                             \
        const float q = y[0];                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                              \
          const float p = x[j];                                                                        \
          z[j] = (EXPR);                                                                               \
        }                                                                                              \
      } else if (b_unit) {                                                                             \
        const float p = x[0];                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                              \
          const float q = y[j];                                                                        \
          z[j] = (EXPR);                                                                               \
        }                                                                                              \
      } else {                                                                                         \
        const float p = x[0], q = y[0], value = (EXPR);                                                \
        for (int64_t j = 0; j < n; j++) z[j] = value;                                                  \
      }                                                                                                \
      for (int d = rank - 2; d >= 0; d--) {                                                            \
        a_at += a_strides[d];                                                                          \
        b_at += b_strides[d];                                                                          \
        if (++index[d] < shape[d]) break;                                                              \
        a_at -= a_strides[d] * shape[d];                                                               \
        b_at -= b_strides[d] * shape[d];                                                               \
        index[d] = 0;                                                                                  \
      }                                                                                                \
    }                                                                                                  \
  }

DEFINE_BINARY(binary_add, p + q)
DEFINE_BINARY(binary_sub, p - q)
DEFINE_BINARY(binary_mul, p * q)
DEFINE_BINARY(binary_div, p / q)

// binary(heap, op, aOffset, bOffset, outOffset, dims): the broadcast binary operation `op` (0 add, 1 sub,
// 2 multiply, 3 divide). dims is an Int32Array [rank, shape[0..rank), aStrides[0..rank), bStrides[0..rank)]
// with 1 ≤ rank ≤ 8, every size ≥ 1, strides in elements ≥ 0 and innermost strides 0 or 1.
static napi_value binary(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 6) THROW(env, "curricula_native.binary: expected 6 arguments");
  uint8_t *heap_data;
  size_t heap_length;
  if (!get_heap(env, argv[0], "curricula_native.binary: heap must be a Uint8Array", &heap_data, &heap_length))
    return NULL;
  int64_t v[4];
  for (int i = 0; i < 4; i++)
    if (!get_int64(env, argv[1 + i], &v[i])) THROW(env, "curricula_native.binary: expected a number");
  const int64_t op = v[0], a_offset = v[1], b_offset = v[2], out_offset = v[3];
  napi_typedarray_type type;
  size_t dims_length;
  void *dims_raw;
  if (napi_get_typedarray_info(env, argv[5], &type, &dims_length, &dims_raw, NULL, NULL) != napi_ok ||
      type != napi_int32_array || dims_length < 1)
    THROW(env, "curricula_native.binary: dims must be an Int32Array");
  const int32_t *dims = dims_raw;
  const int rank = dims[0];
  if (rank < 1 || rank > MaxRank || dims_length < (size_t)(1 + 3 * rank))
    THROW(env, "curricula_native.binary: rank outside [1, 8] or dims too short");
  int64_t shape[MaxRank], a_strides[MaxRank], b_strides[MaxRank];
  int64_t size = 1, a_last = 0, b_last = 0;
  for (int d = 0; d < rank; d++) {
    shape[d] = dims[1 + d];
    a_strides[d] = dims[1 + rank + d];
    b_strides[d] = dims[1 + 2 * rank + d];
    if (shape[d] < 1 || a_strides[d] < 0 || b_strides[d] < 0)
      THROW(env, "curricula_native.binary: a size < 1 or a negative stride");
    size *= shape[d];
    if (size > ((int64_t)1 << 40)) THROW(env, "curricula_native.binary: too many elements");
    a_last += (shape[d] - 1) * a_strides[d];
    b_last += (shape[d] - 1) * b_strides[d];
  }
  if (a_strides[rank - 1] > 1 || b_strides[rank - 1] > 1)
    THROW(env, "curricula_native.binary: an innermost stride other than 0 or 1");
  if (!in_heap(a_offset, a_last + 1, heap_length) || !in_heap(b_offset, b_last + 1, heap_length) ||
      !in_heap(out_offset, size, heap_length))
    THROW(env, "curricula_native.binary: operand outside the wasm heap");
  const float *a = (const float *)(heap_data + a_offset);
  const float *b = (const float *)(heap_data + b_offset);
  float *out = (float *)(heap_data + out_offset);
  switch (op) {
    case OpAdd: binary_add(a, b, out, rank, shape, a_strides, b_strides); break;
    case OpSub: binary_sub(a, b, out, rank, shape, a_strides, b_strides); break;
    case OpMul: binary_mul(a, b, out, rank, shape, a_strides, b_strides); break;
    case OpDiv: binary_div(a, b, out, rank, shape, a_strides, b_strides); break;
    default: THROW(env, "curricula_native.binary: unknown operation");
  }
  return NULL;
}

// Lanes of the partial sums and maxima: the loop over them vectorises without reassociating a single sum.
enum { Lanes = 16 };

CLONES static void sum_rows(const float *restrict x, int64_t outer, int64_t inner, float *restrict out,
                            int mean) {
  for (int64_t i = 0; i < outer; i++) {
    const float *restrict row = x + i * inner;
    float partial[Lanes] = {0};
    int64_t j = 0;
    for (; j + Lanes <= inner; j += Lanes)
      for (int l = 0; l < Lanes; l++) partial[l] += row[j + l];
    float sum = 0;
    for (int l = 0; l < Lanes; l++) sum += partial[l];
    for (; j < inner; j++) sum += row[j];
    out[i] = mean ? sum / (float)inner : sum;
  }
}

CLONES static void max_rows(const float *restrict x, int64_t outer, int64_t inner, float *restrict out) {
  for (int64_t i = 0; i < outer; i++) {
    const float *restrict row = x + i * inner;
    float best = row[0];
    int64_t j = 1;
    if (inner >= Lanes) {
      float partial[Lanes];
      for (int l = 0; l < Lanes; l++) partial[l] = row[l];
      for (j = Lanes; j + Lanes <= inner; j += Lanes)
        for (int l = 0; l < Lanes; l++) partial[l] = row[j + l] > partial[l] ? row[j + l] : partial[l];
      for (int l = 0; l < Lanes; l++) best = partial[l] > best ? partial[l] : best;
    }
    for (; j < inner; j++) best = row[j] > best ? row[j] : best;
    out[i] = best;
  }
}

// reduceTrailing(heap, op, xOffset, outer, inner, outOffset): out[i] = the sum (op 0), mean (1) or
// maximum (2) of row i of a row-major [outer, inner] float32 matrix, i.e. tf.sum / tf.mean / tf.max over
// the trailing axes. inner ≥ 1.
static napi_value reduce_trailing(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 6) THROW(env, "curricula_native.reduceTrailing: expected 6 arguments");
  uint8_t *heap_data;
  size_t heap_length;
  if (!get_heap(env, argv[0], "curricula_native.reduceTrailing: heap must be a Uint8Array", &heap_data,
                &heap_length))
    return NULL;
  int64_t v[5];
  for (int i = 0; i < 5; i++)
    if (!get_int64(env, argv[1 + i], &v[i])) THROW(env, "curricula_native.reduceTrailing: expected a number");
  const int64_t op = v[0], x_offset = v[1], outer = v[2], inner = v[3], out_offset = v[4];
  if (outer < 0 || inner < 1 || outer > ((int64_t)1 << 40) || inner > ((int64_t)1 << 40))
    THROW(env, "curricula_native.reduceTrailing: sizes outside [0, 2^40] × [1, 2^40]");
  if (!in_heap(x_offset, outer * inner, heap_length) || !in_heap(out_offset, outer, heap_length))
    THROW(env, "curricula_native.reduceTrailing: operand outside the wasm heap");
  const float *x = (const float *)(heap_data + x_offset);
  float *out = (float *)(heap_data + out_offset);
  switch (op) {
    case ReduceSum: sum_rows(x, outer, inner, out, 0); break;
    case ReduceMean: sum_rows(x, outer, inner, out, 1); break;
    case ReduceMax: max_rows(x, outer, inner, out); break;
    default: THROW(env, "curricula_native.reduceTrailing: unknown operation");
  }
  return NULL;
}

void register_elementwise(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"binary", NULL, binary, NULL, NULL, NULL, napi_enumerable, NULL},
      {"reduceTrailing", NULL, reduce_trailing, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
