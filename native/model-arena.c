// The activation arena of native/model.c (model-arena.h): 64-byte-aligned slices carved one after the
// other, in the order model-shapes.h lists the buffers.
#include "model-arena.h"

#include <stdlib.h>

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

uint64_t model_arena_layout(float *base, const Dims *s, Buffers *b, LayerActivations *layers) {
  Carver carver = {base, 0}, *c = &carver;
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

int model_arena_reserve(Arena *arena, uint64_t floats, uint64_t doubles, uint64_t layers) {
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

void model_arena_release(Arena *arena) {
  free(arena->floats);
  free(arena->doubles);
  free(arena->layers);
  arena->floats = NULL, arena->doubles = NULL, arena->layers = NULL;
  arena->float_capacity = arena->double_capacity = arena->layer_capacity = 0;
}
