// The native model's shared argument reading and thread runner (model-args.h).
#include "model-args.h"

#include <pthread.h>

#include "napi-args.h"

int model_read_dims(napi_env env, napi_value *argv, const char *fn, Dims *s) {
  char message[200];
  if (!get_integer(env, argv[0], 2, MaxVocab, &s->vocab))
    snprintf(message, sizeof message, "%s: vocab must be an integer in [2, %d]", fn, MaxVocab);
  else if (!get_integer(env, argv[1], 1, MaxWidth, &s->width))
    snprintf(message, sizeof message, "%s: dModel must be an integer in [1, %d]", fn, MaxWidth);
  else if (!get_integer(env, argv[2], 1, MaxLayers, &s->layers))
    snprintf(message, sizeof message, "%s: layers must be an integer in [1, %d]", fn, MaxLayers);
  else if (!get_integer(env, argv[3], 1, s->width, &s->heads) || s->width % s->heads != 0)
    snprintf(message, sizeof message, "%s: heads must be an integer that divides dModel %lld", fn,
             (long long)s->width);
  else if (!get_integer(env, argv[4], 2, MaxContext, &s->context))
    snprintf(message, sizeof message, "%s: context must be an integer in [2, %d]", fn, MaxContext);
  else {
    s->head_width = s->width / s->heads;
    return 1;
  }
  napi_throw_error(env, NULL, message);
  return 0;
}

void model_run_chunks(void *(*run)(void *), void *chunks, size_t size, int64_t count) {
  char *base = chunks;
  pthread_t workers[MaxThreads];
  int64_t started = 1;
  for (; started < count && started < MaxThreads; started++)
    if (pthread_create(&workers[started], NULL, run, base + (size_t)started * size) != 0) break;
  run(base);
  for (int64_t t = started; t < count; t++) run(base + (size_t)t * size);
  for (int64_t t = 1; t < started; t++) pthread_join(workers[t], NULL);
}
