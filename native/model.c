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
// model-diagnostics.c (where a non-finite value appears), model-arena.c (the activation arena and its layout);
// this one checks the arguments, splits the rows between threads (each with its own arena and gradient,
// summed in a fixed order) and is the N-API entry point.
#include <math.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-args.h"
#include "model-arena.h"
#include "model-diagnostics.h"
#include "model-passes.h"
#include "model-profile.h"
#include "model-shapes.h"
#include "napi-args.h"

static const char *const fn = "curricula_native.modelForwardBackward";

// One thread's arena may not exceed 8 GiB (in floats).
static const uint64_t max_arena_floats = (uint64_t)1 << 31;

typedef struct {
  Arena arenas[MaxThreads];
  bool profiling;
  ModelProfile profile; // summed over calls and threads since modelProfile last read it
  double calls, wall_seconds;
} Pool;

static void pool_free(void *data) {
  Pool *pool = data;
  for (int i = 0; i < MaxThreads; i++) model_arena_release(&pool->arenas[i]);
  free(pool);
}

// ------------------------------------------------------------------------------------------- chunks

// One thread's share of a call: `rows` consecutive rows of the batch, their inputs, and what the pass
// leaves (the loss, and a message when the forward pass went non-finite).
typedef struct {
  Inputs in;
  Dims s;
  Buffers b;
  Arena *arena;
  double loss;
  int failed;
  char message[320];
  ModelProfile *profile; // NULL unless profiling
} Chunk;

static void pass_chunk(Chunk *c) {
  const int64_t P = model_parameter_count(&c->s);
  memset(c->b.gradients, 0, (size_t)P * sizeof(float));
  model_forward(&c->in, &c->s, &c->b, c->arena->layers);
  c->loss = model_loss_and_logit_gradient(&c->in, &c->s, &c->b);
  if (!isfinite(c->loss) || model_first_non_finite(c->b.logprobs, c->s.tokens) >= 0) {
    model_describe_forward_failure(c->message, sizeof c->message, fn, &c->in, &c->s, &c->b, c->arena->layers,
                                   c->loss);
    c->failed = 1;
    return;
  }
  model_backward(&c->in, &c->s, &c->b, c->arena->layers, c->arena->doubles);
}

// A chunk's pass on the calling thread, with that thread's profile record set for its duration.
static void *run_chunk(void *data) {
  Chunk *c = data;
  model_profile = c->profile;
  pass_chunk(c);
  model_profile = NULL;
  return NULL;
}

// ---------------------------------------------------------------------------------------- arguments

// modelForwardBackward(vocab, dModel, layers, heads, context, params, gradients, inputs, targets, weights,
//                      rows, time, logprobs[, threads[, entropyWeights[, entropies]]]) → loss
// params, gradients: Float32Array [P] (canonical order; dLoss/dθ is ADDED to gradients); inputs, targets:
// Int32Array [rows·time]; weights: Float32Array [rows·time], signed (loss = Σ weights·logp); logprobs:
// Float32Array [rows·time], written with every position's log p(target), padding included; threads: 1 to
// MaxThreads (default 1), how many threads share the rows (at most one per row); entropyWeights:
// Float32Array [rows·time] or null, the loss then adds Σ entropyWeights·H with H each position's
// next-token entropy; entropies: Float32Array [rows·time] or null, written with every position's H.
static napi_value model_forward_backward(napi_env env, napi_callback_info info) {
  size_t argc = 16;
  napi_value argv[16];
  void *data;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, &data) != napi_ok) FAIL(env, "%s: bad call", fn);
  if (argc < 13 || argc > 16) FAIL(env, "%s: expected 13 to 16 arguments, got %zu", fn, argc);
  Pool *pool = data;
  int64_t threads = 1;
  if (argc >= 14 && !get_integer(env, argv[13], 1, MaxThreads, &threads))
    FAIL(env, "%s: threads must be an integer in [1, %d]", fn, MaxThreads);
  Dims s;
  if (!model_read_dims(env, argv, fn, &s)) return NULL;
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
  in.entropy_weights = NULL;
  in.entropies = NULL;
  if (argc >= 15 && !is_nullish(env, argv[14])) {
    if (!get_array(env, argv[14], napi_float32_array, N, &pointer))
      FAIL(env, "%s: entropyWeights must be null or a Float32Array of rows·time = %lld values", fn, (long long)N);
    in.entropy_weights = pointer;
  }
  if (argc >= 16 && !is_nullish(env, argv[15])) {
    if (!get_array(env, argv[15], napi_float32_array, N, &pointer))
      FAIL(env, "%s: entropies must be null or a Float32Array of rows·time = %lld values", fn, (long long)N);
    in.entropies = pointer;
  }
  if (overlaps(gradients, 4 * P, in.params, 4 * P) || overlaps(logprobs, 4 * N, gradients, 4 * P) ||
      overlaps(logprobs, 4 * N, in.params, 4 * P))
    FAIL(env, "%s: gradients and logprobs must not share memory with params or with each other", fn);
  if (in.entropies && (overlaps(in.entropies, 4 * N, gradients, 4 * P) || overlaps(in.entropies, 4 * N, in.params, 4 * P) ||
                       overlaps(in.entropies, 4 * N, logprobs, 4 * N)))
    FAIL(env, "%s: entropies must not share memory with params, gradients or logprobs", fn);
  for (int64_t n = 0; n < N; n++) {
    if (in.inputs[n] < 0 || in.inputs[n] >= s.vocab)
      FAIL(env, "%s: inputs[%lld] = %d is outside the vocabulary [0, %lld)", fn, (long long)n, in.inputs[n],
           (long long)s.vocab);
    if (in.targets[n] < 0 || in.targets[n] >= s.vocab)
      FAIL(env, "%s: targets[%lld] = %d is outside the vocabulary [0, %lld)", fn, (long long)n, in.targets[n],
           (long long)s.vocab);
    if (!isfinite(in.weights[n])) FAIL(env, "%s: weights[%lld] is not finite", fn, (long long)n);
    if (in.entropy_weights && !isfinite(in.entropy_weights[n]))
      FAIL(env, "%s: entropyWeights[%lld] is not finite", fn, (long long)n);
  }

  // The rows split into `threads` consecutive chunks (the first rows % threads one row longer), each with its
  // own arena and gradient; chunk 0 runs on this thread. The result depends on the thread count (the
  // chunks' gradients are summed in chunk order), never on timing.
  if (threads > s.rows) threads = s.rows;
  Chunk *chunks = calloc((size_t)threads, sizeof(Chunk));
  ModelProfile *profiles = pool->profiling ? calloc((size_t)threads, sizeof(ModelProfile)) : NULL;
  if (!chunks || (pool->profiling && !profiles)) {
    free(chunks);
    free(profiles);
    FAIL(env, "%s: cannot allocate %lld chunk records", fn, (long long)threads);
  }
  const double wall_start = pool->profiling ? model_now() : 0;
  int64_t row = 0;
  for (int64_t t = 0; t < threads; t++) {
    Chunk *c = &chunks[t];
    c->s = s;
    c->s.rows = s.rows / threads + (t < s.rows % threads ? 1 : 0);
    c->s.tokens = c->s.rows * s.time;
    const int64_t first = row * s.time;
    c->in = (Inputs){in.params,
                     in.inputs + first,
                     in.targets + first,
                     in.weights + first,
                     in.entropy_weights ? in.entropy_weights + first : NULL,
                     in.entropies ? in.entropies + first : NULL};
    c->arena = &pool->arenas[t];
    c->profile = profiles ? &profiles[t] : NULL;
    const uint64_t floats = model_arena_layout(NULL, &c->s, &c->b, NULL);
    if (floats > max_arena_floats) {
      free(chunks);
      FAIL(env, "%s: %llu MiB of activations per thread exceed the %llu MiB limit; use fewer rows per call", fn,
           (unsigned long long)(floats >> 18), (unsigned long long)(max_arena_floats >> 18));
    }
    if (!model_arena_reserve(c->arena, floats, 8 * (uint64_t)s.width, (uint64_t)s.layers)) {
      free(chunks);
      FAIL(env, "%s: cannot allocate %llu MiB of activations", fn, (unsigned long long)(floats >> 18));
    }
    model_arena_layout(c->arena->floats, &c->s, &c->b, c->arena->layers);
    row += c->s.rows;
  }
  // A thread that could not start runs its chunk here, after the others: the same result, later.
  model_run_chunks(run_chunk, chunks, sizeof(Chunk), threads);
  if (profiles) {
    for (int64_t t = 0; t < threads; t++)
      for (int p = 0; p < PhaseCount; p++) {
        pool->profile.seconds[p] += profiles[t].seconds[p];
        pool->profile.flops[p] += profiles[t].flops[p];
        pool->profile.calls[p] += profiles[t].calls[p];
      }
    pool->calls += 1;
    pool->wall_seconds += model_now() - wall_start;
    free(profiles);
  }

  double loss = 0;
  for (int64_t t = 0; t < threads; t++) loss += chunks[t].loss;
  for (int64_t t = 0; t < threads; t++) {
    if (chunks[t].failed) {
      char message[320];
      snprintf(message, sizeof message, "%s", chunks[t].message);
      free(chunks);
      napi_throw_error(env, NULL, message);
      return NULL;
    }
  }
  float *total = chunks[0].b.gradients;
  for (int64_t t = 1; t < threads; t++) {
    const float *part = chunks[t].b.gradients;
    for (int64_t i = 0; i < P; i++) total[i] += part[i];
  }
  // The gradient is checked tensor by tensor in backward order: the first one named is the first computed.
  const int64_t tensors = 2 + LayerTensors * s.layers + 3;
  for (int64_t i = tensors - 1; i >= 0; i--) {
    char name[64];
    int64_t offset, count;
    model_parameter_tensor(&s, i, name, sizeof name, &offset, &count);
    if (model_first_non_finite(total + offset, count) >= 0) {
      free(chunks);
      FAIL(env, "%s: non-finite gradient (the loss is %g), first in %s (in backward order)", fn, loss, name);
    }
  }
  for (int64_t i = 0; i < P; i++) gradients[i] += total[i];
  for (int64_t t = 0, offset = 0; t < threads; offset += chunks[t].s.tokens, t++)
    memcpy(logprobs + offset, chunks[t].b.logprobs, (size_t)chunks[t].s.tokens * sizeof(float));
  free(chunks);
  napi_value result;
  if (napi_create_double(env, loss, &result) != napi_ok) FAIL(env, "%s: cannot return the loss", fn);
  return result;
}

static int set_number(napi_env env, napi_value object, const char *key, double value) {
  napi_value number;
  return napi_create_double(env, value, &number) == napi_ok &&
         napi_set_named_property(env, object, key, number) == napi_ok;
}

// modelProfile(enable) → { calls, wallSeconds, phases: { <phase>: { seconds, flops, calls } } }: what the
// profiled calls since the last modelProfile spent (seconds summed over threads), then starts afresh;
// enable (boolean) turns profiling on or off for the calls that follow.
static napi_value model_profile_entry(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  void *data;
  bool enable;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, &data) != napi_ok || argc != 1 ||
      napi_get_value_bool(env, argv[0], &enable) != napi_ok)
    FAIL(env, "curricula_native.modelProfile: expected one boolean (profile the calls that follow)");
  Pool *pool = data;
  napi_value result, phases;
  if (napi_create_object(env, &result) != napi_ok || napi_create_object(env, &phases) != napi_ok ||
      !set_number(env, result, "calls", pool->calls) || !set_number(env, result, "wallSeconds", pool->wall_seconds))
    FAIL(env, "curricula_native.modelProfile: cannot build the result");
  for (int p = 0; p < PhaseCount; p++) {
    napi_value phase;
    if (napi_create_object(env, &phase) != napi_ok || !set_number(env, phase, "seconds", pool->profile.seconds[p]) ||
        !set_number(env, phase, "flops", pool->profile.flops[p]) ||
        !set_number(env, phase, "calls", pool->profile.calls[p]) ||
        napi_set_named_property(env, phases, model_phase_names[p], phase) != napi_ok)
      FAIL(env, "curricula_native.modelProfile: cannot build the result");
  }
  if (napi_set_named_property(env, result, "phases", phases) != napi_ok)
    FAIL(env, "curricula_native.modelProfile: cannot build the result");
  memset(&pool->profile, 0, sizeof pool->profile);
  pool->calls = 0, pool->wall_seconds = 0;
  pool->profiling = enable;
  return result;
}

void register_model(napi_env env, napi_value exports) {
  Pool *pool = calloc(1, sizeof(Pool));
  if (!pool) return;
  if (napi_add_env_cleanup_hook(env, pool_free, pool) != napi_ok) {
    free(pool);
    return;
  }
  napi_property_descriptor properties[] = {
      {"modelForwardBackward", NULL, model_forward_backward, NULL, NULL, NULL, napi_enumerable, pool},
      {"modelProfile", NULL, model_profile_entry, NULL, NULL, NULL, napi_enumerable, pool},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
