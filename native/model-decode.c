// The embedded transformer's KV-cached decoding in one native call (src/policy/native-decoder.ts): what the
// tfjs sampler's prefill and decodeStep compute (src/policy/sampler-forward.ts), on the same flat
// canonical-order parameter buffer as model.c and a key/value cache that JavaScript owns, instead of ~15
// tfjs kernels per layer and step. The same call is the prefill (`width` new columns per row, attended
// causally) and one decoding step (width 1).
//
// Per row r and new column c = column + s (s < width), token tokens[r, s] at position positions[r, s]:
// x = wte[token] + wpe[position], then per block x += proj(attention(LN1(x))) and x += MLP(LN2(x)) as in
// model-passes.c's forward, where the attention writes the column's key and value into the cache and
// attends over the cache columns [pads[r], c] (attention.c's att_attend_head, the kernel the tfjs
// sampler's native attention runs); the logits of the row's last new column are LN_f(x) · lm_head.
// Deviations from the tfjs sampler: none in the math; LayerNorm is applied with its gain and bias instead
// of folded into the next weight (sampler-weights.ts), and q is scaled after its product instead of
// through the weight: float32 rounding differs (agreement within 1e-5 relative is tested).
//
// The cache is keys and values [L, R, H, C, hd] (C = capacity). Rows are split between threads, each with
// its own scratch; rows are independent, so the result depends on the thread count only through sgemm's
// rounding, which varies with the number of rows it is given (relative 1e-6), never on timing. On success
// logits [R, V] are written; on failure (a non-finite activation, named by block) they are not, but cache
// columns [column, column + width) may have been: the caller treats them as unwritten.
#include <math.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "model-args.h"
#include "model-diagnostics.h"
#include "model-kernels.h"
#include "model-shapes.h"
#include "napi-args.h"

static const char *const fn = "curricula_native.modelDecode";

// One thread's scratch may not exceed 4 GiB (in floats).
static const uint64_t max_scratch_floats = (uint64_t)1 << 30;

typedef struct {
  Dims s; // rows: this chunk's rows; time: the new columns per row
  const float *params;
  float *keys, *values;        // the whole cache [L, R, H, C, hd]
  int64_t cache_rows, row0;    // R, and the chunk's first row
  int64_t capacity, column;    // C, and the first new column
  const int32_t *tokens, *positions, *pads; // the chunk's rows
  float *scratch, *logits;     // logits [rows, V] inside scratch
  int failed_block;            // −2: fine; −1: the embeddings; l: block l's output; s.layers: the logits
} DecodeChunk;

static uint64_t scratch_floats(const Dims *s, int64_t capacity) {
  const uint64_t n = (uint64_t)s->tokens, d = (uint64_t)s->width;
  return n * (15 * d + 2) + (uint64_t)capacity + (uint64_t)s->rows * (2 * d + 2 + (uint64_t)s->vocab);
}

// Every block on the chunk's rows; 0 and failed_block set when an activation is not finite.
static int decode_blocks(DecodeChunk *c, float **residual) {
  const Dims *s = &c->s;
  const int64_t N = s->tokens, d = s->width, H = s->heads, hd = s->head_width, C = c->capacity;
  float *x = c->scratch, *y = x + N * d, *ln = y + N * d, *mean = ln + N * d, *rstd = mean + N;
  float *qkv = rstd + N, *att = qkv + N * 3 * d, *hidden = att + N * d, *gelu = hidden + N * 4 * d;
  float *scores = gelu + N * 4 * d;
  const float scale = 1.0f / sqrtf((float)hd);
  for (int64_t l = 0; l < s->layers; l++) {
    const LayerParameters w = model_layer_parameters((float *)c->params, s, l);
    model_layer_norm_forward(ln, mean, rstd, x, w.ln1_w, w.ln1_b, N, d);
    model_rows_plus_bias(qkv, NULL, w.qkv_b, N, 3 * d);
    model_gemm(false, false, N, 3 * d, d, 1.0f, ln, d, w.qkv_w, 3 * d, 1.0f, qkv, 3 * d);
    for (int64_t n = 0; n < N; n++)
      for (int64_t j = 0; j < d; j++) qkv[n * 3 * d + j] *= scale;
    for (int64_t r = 0; r < s->rows; r++) {
      const int64_t block = ((l * c->cache_rows + c->row0 + r) * H) * C * hd;
      for (int64_t t = 0; t < s->time; t++)
        for (int64_t h = 0; h < H; h++) {
          const int64_t n = r * s->time + t, at = c->column + t;
          // A padding column before the row's first token attends to itself (any finite output does: no
          // real token reads its key or value).
          const int64_t first = c->pads[r] <= at ? c->pads[r] : at;
          att_attend_head(qkv + n * 3 * d, d, h, hd, c->keys + block + h * C * hd, c->values + block + h * C * hd,
                          false, C, first, at, scores, att + n * d + h * hd);
        }
    }
    model_rows_plus_bias(y, x, w.proj_b, N, d);
    model_gemm(false, false, N, d, d, 1.0f, att, d, w.proj_w, d, 1.0f, y, d);
    model_layer_norm_forward(ln, mean, rstd, y, w.ln2_w, w.ln2_b, N, d);
    model_rows_plus_bias(hidden, NULL, w.fc_b, N, 4 * d);
    model_gemm(false, false, N, 4 * d, d, 1.0f, ln, d, w.fc_w, 4 * d, 1.0f, hidden, 4 * d);
    model_gelu_forward(gelu, hidden, N * 4 * d);
    model_rows_plus_bias(x, y, w.fc_proj_b, N, d);
    model_gemm(false, false, N, d, 4 * d, 1.0f, gelu, 4 * d, w.fc_proj_w, d, 1.0f, x, d);
    if (model_first_non_finite(x, N * d) >= 0) {
      c->failed_block = (int)l;
      return 0;
    }
  }
  *residual = x;
  return 1;
}

static void *decode_chunk(void *data) {
  DecodeChunk *c = data;
  const Dims *s = &c->s;
  const int64_t N = s->tokens, d = s->width, V = s->vocab;
  const float *wte = c->params, *wpe = wte + V * d;
  float *x = c->scratch;
  for (int64_t n = 0; n < N; n++) {
    const float *token = wte + (int64_t)c->tokens[n] * d, *position = wpe + (int64_t)c->positions[n] * d;
    for (int64_t j = 0; j < d; j++) x[n * d + j] = token[j] + position[j];
  }
  if (model_first_non_finite(x, N * d) >= 0) {
    c->failed_block = -1;
    return NULL;
  }
  float *residual;
  if (!decode_blocks(c, &residual)) return NULL;
  // The last new column of each row, through ln_f and lm_head.
  float *last = c->scratch + N * (15 * d + 2) + c->capacity, *lnf = last + s->rows * d;
  float *mean = lnf + s->rows * d, *rstd = mean + s->rows;
  for (int64_t r = 0; r < s->rows; r++)
    memcpy(last + r * d, residual + ((r + 1) * s->time - 1) * d, (size_t)d * sizeof(float));
  const float *final = c->params + V * d + s->context * d + s->layers * model_layer_parameter_count(s);
  model_layer_norm_forward(lnf, mean, rstd, last, final, final + d, s->rows, d);
  model_gemm(false, false, s->rows, V, d, 1.0f, lnf, d, final + 2 * d, V, 0.0f, c->logits, V);
  if (model_first_non_finite(c->logits, s->rows * V) >= 0) c->failed_block = (int)s->layers;
  return NULL;
}

// Checks tokens, positions and pads of every row against the model and the cache; 0 after throwing.
static int check_rows(napi_env env, const Dims *s, const int32_t *tokens, const int32_t *positions,
                      const int32_t *pads, int64_t rows, int64_t column) {
  for (int64_t n = 0; n < rows * s->time; n++) {
    if (tokens[n] < 0 || tokens[n] >= s->vocab) {
      char message[200];
      snprintf(message, sizeof message, "%s: tokens[%lld] = %d is outside the vocabulary [0, %lld)", fn,
               (long long)n, tokens[n], (long long)s->vocab);
      napi_throw_error(env, NULL, message);
      return 0;
    }
    if (positions[n] < 0 || positions[n] >= s->context) {
      char message[200];
      snprintf(message, sizeof message, "%s: positions[%lld] = %d is outside the context [0, %lld)", fn,
               (long long)n, positions[n], (long long)s->context);
      napi_throw_error(env, NULL, message);
      return 0;
    }
  }
  for (int64_t r = 0; r < rows; r++)
    if (pads[r] < 0 || pads[r] >= column + s->time) {
      char message[200];
      snprintf(message, sizeof message, "%s: pads[%lld] = %d is not in [0, column + width = %lld)", fn,
               (long long)r, pads[r], (long long)(column + s->time));
      napi_throw_error(env, NULL, message);
      return 0;
    }
  return 1;
}

// Splits the rows into chunks with their scratch, runs them, and copies the logits out; NULL after
// throwing (then nothing is written to logits).
static napi_value run_decode(napi_env env, DecodeChunk *proto, int64_t rows, int64_t threads, float *logits) {
  if (threads > rows) threads = rows;
  DecodeChunk *chunks = calloc((size_t)threads, sizeof(DecodeChunk));
  if (!chunks) FAIL(env, "%s: cannot allocate %lld chunk records", fn, (long long)threads);
  int ok = 1;
  for (int64_t t = 0, row = 0; t < threads; t++) {
    DecodeChunk *c = &chunks[t];
    *c = *proto;
    c->s.rows = rows / threads + (t < rows % threads ? 1 : 0);
    c->s.tokens = c->s.rows * c->s.time;
    c->row0 = row;
    c->tokens += row * c->s.time, c->positions += row * c->s.time, c->pads += row;
    c->failed_block = -2;
    const uint64_t floats = scratch_floats(&c->s, c->capacity);
    c->scratch = floats <= max_scratch_floats ? malloc(floats * sizeof(float)) : NULL;
    c->logits = c->scratch ? c->scratch + floats - (uint64_t)(c->s.rows * c->s.vocab) : NULL;
    ok = ok && c->scratch;
    row += c->s.rows;
  }
  if (ok) model_run_chunks(decode_chunk, chunks, sizeof(DecodeChunk), threads);
  char message[240] = "";
  for (int64_t t = 0; t < threads && ok && !message[0]; t++) {
    const DecodeChunk *c = &chunks[t];
    if (c->failed_block == -1)
      snprintf(message, sizeof message, "%s: non-finite embeddings (wte + wpe) in rows from %lld", fn,
               (long long)c->row0);
    else if (c->failed_block >= 0 && c->failed_block < c->s.layers)
      snprintf(message, sizeof message, "%s: non-finite activation in the output of block h.%d (rows from %lld)",
               fn, c->failed_block, (long long)c->row0);
    else if (c->failed_block == c->s.layers)
      snprintf(message, sizeof message, "%s: non-finite logits (ln_f, lm_head; rows from %lld)", fn,
               (long long)c->row0);
  }
  if (ok && !message[0])
    for (int64_t t = 0; t < threads; t++)
      memcpy(logits + chunks[t].row0 * proto->s.vocab, chunks[t].logits,
             (size_t)(chunks[t].s.rows * proto->s.vocab) * sizeof(float));
  for (int64_t t = 0; t < threads; t++) free(chunks[t].scratch);
  free(chunks);
  if (!ok) FAIL(env, "%s: cannot allocate the scratch of %lld rows", fn, (long long)rows);
  if (message[0]) FAIL(env, "%s", message);
  return NULL;
}

// modelDecode(vocab, dModel, layers, heads, context, params, keys, values, capacity, rows, width, tokens,
//             positions, pads, column, logits[, threads])
// params: Float32Array [P] (canonical order); keys, values: Float32Array [L·R·H·C·hd] (C = capacity ≤
// 2·context: a row's columns are its padding and its positions), written at columns [column, column + width); tokens, positions: Int32Array [R·width]; pads:
// Int32Array [R], the first cache column each row attends to (< column + width); logits: Float32Array
// [R·V], written with each row's next-token logits; threads: 1 to MaxThreads (default 1).
static napi_value model_decode(napi_env env, napi_callback_info info) {
  size_t argc = 17;
  napi_value argv[17];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) FAIL(env, "%s: bad call", fn);
  if (argc != 16 && argc != 17) FAIL(env, "%s: expected 16 or 17 arguments, got %zu", fn, argc);
  DecodeChunk proto = {0};
  Dims *s = &proto.s;
  if (!model_read_dims(env, argv, fn, s)) return NULL;
  int64_t rows, threads = 1;
  if (argc == 17 && !get_integer(env, argv[16], 1, MaxThreads, &threads))
    FAIL(env, "%s: threads must be an integer in [1, %d]", fn, MaxThreads);
  // A row's columns are its padding and its positions: fewer than 2·context.
  if (!get_integer(env, argv[8], 1, 2 * s->context, &proto.capacity))
    FAIL(env, "%s: capacity must be an integer in [1, 2·context = %lld]", fn, (long long)(2 * s->context));
  if (!get_integer(env, argv[9], 1, MaxTokens, &rows)) FAIL(env, "%s: rows must be an integer in [1, %d]", fn, MaxTokens);
  if (!get_integer(env, argv[10], 1, proto.capacity, &s->time))
    FAIL(env, "%s: width must be an integer in [1, capacity %lld]", fn, (long long)proto.capacity);
  if (!get_integer(env, argv[14], 0, proto.capacity - s->time, &proto.column))
    FAIL(env, "%s: column must be an integer in [0, capacity − width = %lld]", fn,
         (long long)(proto.capacity - s->time));
  if (rows * s->time > MaxTokens) FAIL(env, "%s: rows·width exceeds %d tokens per call", fn, MaxTokens);
  const int64_t P = model_parameter_count(s), N = rows * s->time;
  const int64_t cache = s->layers * rows * s->heads * proto.capacity * s->head_width;
  void *p;
  if (!get_array(env, argv[5], napi_float32_array, P, &p))
    FAIL(env, "%s: params must be a Float32Array of %lld values (every parameter in canonical order)", fn,
         (long long)P);
  proto.params = p;
  if (!get_array(env, argv[6], napi_float32_array, cache, &p))
    FAIL(env, "%s: keys must be a Float32Array of layers·rows·heads·capacity·headSize = %lld values", fn,
         (long long)cache);
  proto.keys = p;
  if (!get_array(env, argv[7], napi_float32_array, cache, &p))
    FAIL(env, "%s: values must be a Float32Array of %lld values, like keys", fn, (long long)cache);
  proto.values = p;
  if (!get_array(env, argv[11], napi_int32_array, N, &p))
    FAIL(env, "%s: tokens must be an Int32Array of rows·width = %lld ids", fn, (long long)N);
  proto.tokens = p;
  if (!get_array(env, argv[12], napi_int32_array, N, &p))
    FAIL(env, "%s: positions must be an Int32Array of rows·width = %lld positions", fn, (long long)N);
  proto.positions = p;
  if (!get_array(env, argv[13], napi_int32_array, rows, &p))
    FAIL(env, "%s: pads must be an Int32Array of %lld entries (one per row)", fn, (long long)rows);
  proto.pads = p;
  float *logits;
  if (!get_array(env, argv[15], napi_float32_array, rows * s->vocab, &p))
    FAIL(env, "%s: logits must be a Float32Array of rows·vocab = %lld values", fn, (long long)(rows * s->vocab));
  logits = p;
  if (overlaps(proto.keys, 4 * cache, proto.values, 4 * cache) || overlaps(proto.keys, 4 * cache, proto.params, 4 * P) ||
      overlaps(proto.values, 4 * cache, proto.params, 4 * P) || overlaps(logits, 4 * rows * s->vocab, proto.params, 4 * P) ||
      overlaps(logits, 4 * rows * s->vocab, proto.keys, 4 * cache) ||
      overlaps(logits, 4 * rows * s->vocab, proto.values, 4 * cache))
    FAIL(env, "%s: keys, values, logits and params must not share memory", fn);
  if (!check_rows(env, s, proto.tokens, proto.positions, proto.pads, rows, proto.column)) return NULL;
  proto.cache_rows = rows;
  return run_decode(env, &proto, rows, threads, logits);
}

void register_decode(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"modelDecode", NULL, model_decode, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
