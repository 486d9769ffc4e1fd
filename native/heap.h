// Shared helpers of the addon's C files (curricula_native.c, elementwise.c): the wasm heap argument, integer
// arguments, the heap range check, and the THROW/CHECK macros that turn a bad argument into a JavaScript
// error. Every kernel checks each range it touches with in_heap before it reads or writes, so a wrong
// offset throws instead of corrupting memory.
#ifndef CURRICULA_HEAP_H
#define CURRICULA_HEAP_H

#include <node_api.h>
#include <stdint.h>

#define THROW(env, message)                                                                            \
  do {                                                                                                 \
    napi_throw_error((env), NULL, (message));                                                          \
    return NULL;                                                                                       \
  } while (0)

#define CHECK(env, call)                                                                               \
  do {                                                                                                 \
    if ((call) != napi_ok) THROW((env), "curricula_native: bad argument (" #call ")");                 \
  } while (0)

// The wasm heap argument: a Uint8Array over the WebAssembly memory. 0 (with a thrown error) if not.
static inline int get_heap(napi_env env, napi_value value, const char *message, uint8_t **data,
                           size_t *length) {
  napi_typedarray_type type;
  void *raw;
  if (napi_get_typedarray_info(env, value, &type, length, &raw, NULL, NULL) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_error(env, NULL, message);
    return 0;
  }
  *data = raw;
  return 1;
}

static inline int get_int64(napi_env env, napi_value value, int64_t *out) {
  return napi_get_value_int64(env, value, out) == napi_ok;
}

// True when [offset, offset + 4 * count) lies inside a heap of `length` bytes and is 4-byte aligned.
static inline int in_heap(int64_t offset, int64_t count, size_t length) {
  if (offset < 0 || count < 0 || (offset & 3) != 0) return 0;
  return (uint64_t)offset + 4 * (uint64_t)count <= (uint64_t)length;
}

// Exports defined by the addon's other C files, called from init() in curricula_native.c.
void register_elementwise(napi_env env, napi_value exports);

#endif
