// The activation arena of the embedded transformer's pass (native/model.c): one per thread of a call,
// allocated once and reused between calls (it grows, never shrinks), and the layout that carves a chunk's
// buffers (model-shapes.h) out of it.
#ifndef CURRICULA_MODEL_ARENA_H
#define CURRICULA_MODEL_ARENA_H

#include <stdint.h>

#include "model-shapes.h"

typedef struct {
  float *floats;
  uint64_t float_capacity;
  double *doubles; // [8d] double accumulators of the bias and gain gradients
  uint64_t double_capacity;
  LayerActivations *layers;
  uint64_t layer_capacity;
} Arena;

// The floats a pass over `s` needs (saturating: an absurd size compares above any limit instead of
// wrapping); with an arena whose floats hold that many, also points `b` and `layers` into it.
uint64_t model_arena_layout(float *base, const Dims *s, Buffers *b, LayerActivations *layers);

// Makes room for `floats` floats, `doubles` doubles and `layers` layer records. 0 when malloc fails.
int model_arena_reserve(Arena *arena, uint64_t floats, uint64_t doubles, uint64_t layers);

void model_arena_release(Arena *arena);

#endif
