// What the native model's two entry points (model.c's forward and backward, model-decode.c's KV-cached
// decoding) share: the size limits, reading the model's dimensions from the first five arguments, and
// running per-thread chunks of a call's rows.
#ifndef CURRICULA_MODEL_ARGS_H
#define CURRICULA_MODEL_ARGS_H

#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

#include "model-shapes.h"

// Limits that keep every size product far below int64 overflow and every sgemm dimension below 2^31.
enum { MaxWidth = 1 << 14, MaxLayers = 1 << 10, MaxContext = 1 << 16, MaxVocab = 1 << 24, MaxTokens = 1 << 22 };

// The most threads one call may use: a fixed number, so that an argument cannot make the process start
// thousands.
enum { MaxThreads = 16 };

// argv[0..5) = vocab, dModel, layers, heads, context into s (head_width too; rows, time, tokens untouched).
// 0 after throwing a JavaScript error that names `fn` and the argument.
int model_read_dims(napi_env env, napi_value *argv, const char *fn, Dims *s);

// Runs run(chunks + t·size) for t in [0, count): chunk 0 on this thread, the others on threads of their
// own; a thread that cannot start runs its chunk here after the others. Returns when all have finished.
void model_run_chunks(void *(*run)(void *), void *chunks, size_t size, int64_t count);

#endif
