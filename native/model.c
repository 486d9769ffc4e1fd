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
//
// The files: model-shapes.c (dimensions and the parameter layout; model-shapes.h also holds the activation
// records), model-kernels.c (sgemm, LayerNorm, GELU, attention), model-passes.c (forward, loss, backward),
// model-diagnostics.c (where a non-finite value appears); this one checks the arguments, manages the arena
// and is the N-API entry point.
#include <math.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-diagnostics.h"
#include "model-passes.h"
#include "model-shapes.h"

static const char *const fn = "curricula_native.modelForwardBackward";

// Limits that keep every size product far below int64 overflow and every sgemm dimension below 2^31.
enum { MaxWidth = 1 << 14, MaxLayers = 1 << 10, MaxContext = 1 << 16, MaxVocab = 1 << 24, MaxTokens = 1 << 22 };
// The arena may not exceed 8 GiB (in floats).
static const uint64_t max_arena_floats = (uint64_t)1 << 31;

// ----------------------------------------------------------------------------------------------- arena

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
  b->gradients = take(c, (uint64_t)model_parameter_count(s));
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
  const int64_t P = model_parameter_count(&s), N = s.tokens;

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

  model_forward(&in, &s, &b, arena->layers);
  const double loss = model_loss_and_logit_gradient(&in, &s, &b);
  if (!isfinite(loss) || model_first_non_finite(b.logprobs, N) >= 0) {
    char message[320];
    model_describe_forward_failure(message, sizeof message, fn, &in, &s, &b, arena->layers, loss);
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  model_backward(&in, &s, &b, arena->layers, arena->doubles);
  // The gradient is checked tensor by tensor in backward order: the first one named is the first computed.
  const int64_t tensors = 2 + LayerTensors * s.layers + 3;
  for (int64_t i = tensors - 1; i >= 0; i--) {
    char name[64];
    int64_t offset, count;
    model_parameter_tensor(&s, i, name, sizeof name, &offset, &count);
    if (model_first_non_finite(b.gradients + offset, count) >= 0)
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
