// Native kernels for the wasm backend of tfjs: matmul on OpenBLAS and Sum over leading axes (see
// src/policy/native-kernels.ts).
//
// The tensors live in the WebAssembly memory of tfjs-backend-wasm. JavaScript passes that memory as a
// Uint8Array (backend.wasm.HEAPU8) plus byte offsets of the operands inside it, and this addon runs
// OpenBLAS's cblas_sgemm on them in place: no copy in, no copy out. The caller allocates the output on
// the heap before it takes HEAPU8 (an allocation may grow the memory and replace its buffer).
//
// Every range is checked against the heap's length before BLAS touches it, so a wrong offset throws a
// JavaScript error instead of corrupting memory.
//
// The CBLAS prototypes are declared here rather than taken from <cblas.h>: Debian keeps that header in a
// per-variant directory (openblas-pthread, openblas-openmp, ...), and the ABI below is the stable one.
#include <math.h>
#include <node_api.h>
#include <stdint.h>
#include <string.h>

#include "heap.h"

enum { CblasRowMajor = 101 };
enum { CblasNoTrans = 111, CblasTrans = 112 };

extern void cblas_sgemm(int order, int transA, int transB, int m, int n, int k, float alpha, const float *a,
                        int lda, const float *b, int ldb, float beta, float *c, int ldc);
extern void openblas_set_num_threads(int threads);
extern int openblas_get_num_threads(void);
extern char *openblas_get_config(void);

// Activations of tfjs's _FusedMatMul, numbered as tfjs-backend-wasm's FusableActivation (prelu, 3, is
// left to the stock kernel).
enum { ActivationLinear = 0, ActivationRelu = 1, ActivationRelu6 = 2, ActivationLeakyRelu = 4,
       ActivationSigmoid = 5, ActivationElu = 6 };

static void activate(float *c, int64_t size, int activation, float alpha) {
  switch (activation) {
    case ActivationRelu:
      for (int64_t i = 0; i < size; i++) c[i] = c[i] > 0 ? c[i] : 0;
      break;
    case ActivationRelu6:
      for (int64_t i = 0; i < size; i++) c[i] = c[i] > 0 ? (c[i] < 6 ? c[i] : 6) : 0;
      break;
    case ActivationLeakyRelu:
      for (int64_t i = 0; i < size; i++) c[i] = c[i] > 0 ? c[i] : alpha * c[i];
      break;
    case ActivationSigmoid:
      for (int64_t i = 0; i < size; i++) c[i] = 1.0f / (1.0f + expf(-c[i]));
      break;
    case ActivationElu:
      for (int64_t i = 0; i < size; i++) c[i] = c[i] > 0 ? c[i] : expm1f(c[i]);
      break;
    default:
      break;
  }
}

// matmul(heap, transposeA, transposeB, m, n, k, batch, aOffset, aStride, bOffset, bStride, cOffset,
//        biasOffset, activation, alpha)
//
// For i in [0, batch): C_i = act(op(A_i) · op(B_i) + bias), all row-major float32 in `heap`:
//   A_i at byte aOffset + 4·i·aStride: [m, k], or [k, m] when transposeA;
//   B_i at byte bOffset + 4·i·bStride: [k, n], or [n, k] when transposeB;
//   C_i at byte cOffset + 4·i·m·n: [m, n]; bias (biasOffset ≥ 0): [n], added to every row.
// A stride of 0 broadcasts one matrix over the batch. Strides are in elements.
static napi_value matmul(napi_env env, napi_callback_info info) {
  size_t argc = 15;
  napi_value argv[15];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 15) THROW(env, "curricula_native.matmul: expected 15 arguments");

  uint8_t *heap_data;
  size_t heap_length;
  if (!get_heap(env, argv[0], "curricula_native.matmul: heap must be a Uint8Array", &heap_data, &heap_length))
    return NULL;

  bool transpose_a, transpose_b;
  CHECK(env, napi_get_value_bool(env, argv[1], &transpose_a));
  CHECK(env, napi_get_value_bool(env, argv[2], &transpose_b));
  int64_t v[11];
  for (int i = 0; i < 11; i++)
    if (!get_int64(env, argv[3 + i], &v[i])) THROW(env, "curricula_native.matmul: expected a number");
  double alpha_value;
  CHECK(env, napi_get_value_double(env, argv[14], &alpha_value));
  const int64_t m = v[0], n = v[1], k = v[2], batch = v[3];
  const int64_t a_offset = v[4], a_stride = v[5], b_offset = v[6], b_stride = v[7], c_offset = v[8];
  const int64_t bias_offset = v[9], activation = v[10];

  if (m < 0 || n < 0 || k < 0 || batch < 0 || a_stride < 0 || b_stride < 0)
    THROW(env, "curricula_native.matmul: negative size or stride");
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    THROW(env, "curricula_native.matmul: matrix dimension beyond 32 bits");
  if (batch > 0) {
    const int64_t last = batch - 1;
    if (!in_heap(a_offset, last * a_stride + m * k, heap_length) ||
        !in_heap(b_offset, last * b_stride + k * n, heap_length) ||
        !in_heap(c_offset, batch * m * n, heap_length))
      THROW(env, "curricula_native.matmul: operand outside the wasm heap");
  }
  if (bias_offset >= 0 && !in_heap(bias_offset, n, heap_length))
    THROW(env, "curricula_native.matmul: bias outside the wasm heap");

  uint8_t *base = (uint8_t *)heap_data;
  const float *bias = bias_offset >= 0 ? (const float *)(base + bias_offset) : NULL;
  const int lda = (int)(transpose_a ? m : k);
  const int ldb = (int)(transpose_b ? k : n);
  for (int64_t i = 0; i < batch; i++) {
    const float *a = (const float *)(base + a_offset) + i * a_stride;
    const float *b = (const float *)(base + b_offset) + i * b_stride;
    float *c = (float *)(base + c_offset) + i * m * n;
    float beta = 0.0f;
    if (bias) {
      for (int64_t row = 0; row < m; row++) memcpy(c + row * n, bias, (size_t)n * sizeof(float));
      beta = 1.0f;
    }
    if (m == 0 || n == 0) continue;
    if (k == 0) {
      // BLAS implementations differ on k = 0; the product is then all zeros.
      if (!bias) memset(c, 0, (size_t)(m * n) * sizeof(float));
    } else {
      cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
                  transpose_b ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a,
                  lda > 0 ? lda : 1, b, ldb > 0 ? ldb : 1, beta, c, n > 0 ? (int)n : 1);
    }
    activate(c, m * n, (int)activation, (float)alpha_value);
  }
  return NULL;
}

// The output is a fresh tensor, never one of the inputs: `restrict` lets the compiler vectorise over j.
static void add_rows(const float *restrict x, int64_t outer, int64_t inner, float *restrict out) {
  memset(out, 0, (size_t)inner * sizeof(float));
  for (int64_t i = 0; i < outer; i++) {
    const float *restrict row = x + i * inner;
    for (int64_t j = 0; j < inner; j++) out[j] += row[j];
  }
}

// sumLeading(heap, xOffset, outer, inner, outOffset): out[j] = Σ_i x[i·inner + j] over a row-major
// [outer, inner] float32 matrix, i.e. tf.sum over the leading axes. The stock wasm Sum transposes the
// whole input first to reduce innermost axes; this is the bias gradient of every linear layer. Rows are
// added in order, in float32, as the stock kernel does after its transpose.
static napi_value sum_leading(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 5) THROW(env, "curricula_native.sumLeading: expected 5 arguments");
  uint8_t *heap_data;
  size_t heap_length;
  if (!get_heap(env, argv[0], "curricula_native.sumLeading: heap must be a Uint8Array", &heap_data, &heap_length))
    return NULL;
  int64_t v[4];
  for (int i = 0; i < 4; i++)
    if (!get_int64(env, argv[1 + i], &v[i])) THROW(env, "curricula_native.sumLeading: expected a number");
  const int64_t x_offset = v[0], outer = v[1], inner = v[2], out_offset = v[3];
  if (outer < 0 || inner < 0) THROW(env, "curricula_native.sumLeading: negative size");
  if (!in_heap(x_offset, outer * inner, heap_length) || !in_heap(out_offset, inner, heap_length))
    THROW(env, "curricula_native.sumLeading: operand outside the wasm heap");
  uint8_t *base = (uint8_t *)heap_data;
  add_rows((const float *)(base + x_offset), outer, inner, (float *)(base + out_offset));
  return NULL;
}

// setThreads(n): the number of OpenBLAS threads for this process.
static napi_value set_threads(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int64_t threads;
  if (argc != 1 || !get_int64(env, argv[0], &threads) || threads < 1 || threads > 1024)
    THROW(env, "curricula_native.setThreads: expected an integer in [1, 1024]");
  openblas_set_num_threads((int)threads);
  return NULL;
}

static napi_value get_threads(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  CHECK(env, napi_create_int32(env, openblas_get_num_threads(), &result));
  return result;
}

// The OpenBLAS build string, e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
static napi_value blas_config(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  CHECK(env, napi_create_string_utf8(env, openblas_get_config(), NAPI_AUTO_LENGTH, &result));
  return result;
}

void register_fused(napi_env env, napi_value exports);
void register_attention(napi_env env, napi_value exports);
void register_model(napi_env env, napi_value exports);
void register_decode(napi_env env, napi_value exports);

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"matmul", NULL, matmul, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sumLeading", NULL, sum_leading, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setThreads", NULL, set_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"getThreads", NULL, get_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"blasConfig", NULL, blas_config, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties) !=
      napi_ok)
    return NULL;
  register_elementwise(env, exports);
  register_fused(env, exports);
  register_attention(env, exports);
  register_model(env, exports);
  register_decode(env, exports);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
