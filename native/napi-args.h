// Argument checks shared by the N-API entry points of the native model (model.c, model-decode.c): each
// returns 0 without throwing when the argument is not what it should be, so that the caller throws one
// message that names the argument and the expected form (FAIL).
#ifndef CURRICULA_NAPI_ARGS_H
#define CURRICULA_NAPI_ARGS_H

#include <math.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FAIL(env, ...)                                                                                 \
  do {                                                                                                 \
    char failure_[320];                                                                                \
    snprintf(failure_, sizeof failure_, __VA_ARGS__);                                                  \
    napi_throw_error((env), NULL, failure_);                                                           \
    return NULL;                                                                                       \
  } while (0)

// An integer argument in [low, high]; 0 (nothing thrown) when it is not one.
static inline int get_integer(napi_env env, napi_value value, int64_t low, int64_t high, int64_t *out) {
  double number;
  if (napi_get_value_double(env, value, &number) != napi_ok || !(number >= (double)low) ||
      !(number <= (double)high) || number != floor(number))
    return 0;
  *out = (int64_t)number;
  return 1;
}

// A typed array of `type` with exactly `length` elements; 0 (nothing thrown) when it is not one.
static inline int get_array(napi_env env, napi_value value, napi_typedarray_type type, int64_t length,
                            void **data) {
  napi_typedarray_type actual;
  size_t count;
  if (napi_get_typedarray_info(env, value, &actual, &count, data, NULL, NULL) != napi_ok || actual != type ||
      (int64_t)count != length)
    return 0;
  return 1;
}

// Whether an optional argument was left out: null or undefined.
static inline bool is_nullish(napi_env env, napi_value value) {
  napi_valuetype type;
  return napi_typeof(env, value, &type) == napi_ok && (type == napi_null || type == napi_undefined);
}

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
static inline bool overlaps(const void *a, int64_t a_bytes, const void *b, int64_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x < y + (uintptr_t)b_bytes && y < x + (uintptr_t)a_bytes;
}

#endif
