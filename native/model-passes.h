// The embedded transformer's passes (model-passes.c) over the buffers and saved activations that model.c
// lays out in its arena (model-shapes.h).
#ifndef CURRICULA_MODEL_PASSES_H
#define CURRICULA_MODEL_PASSES_H

#include <stdint.h>

#include "model-shapes.h"

// The caller's arguments: params [P] in canonical order; inputs, targets, weights [N]; optional
// entropy_weights [N] (the loss adds Σ e·H, H the entropy of each position's next-token distribution;
// NULL = none) and entropies [N] (written with every position's H when not NULL).
typedef struct {
  const float *params;
  const int32_t *inputs, *targets;
  const float *weights;
  const float *entropy_weights;
  float *entropies;
} Inputs;

// Embeddings, every block (saving its activations in acts[l]), ln_f and the logits.
void model_forward(const Inputs *in, const Dims *s, Buffers *b, LayerActivations *acts);

// Log-probs of the targets, the loss Σ w·logp + Σ e·H (returned), dLoss/dlogits in place of the logits.
double model_loss_and_logit_gradient(const Inputs *in, const Dims *s, Buffers *b);

// dLoss/dθ into b->gradients (which must start at zero); sums: 8d doubles of scratch.
void model_backward(const Inputs *in, const Dims *s, Buffers *b, LayerActivations *acts, double *sums);

#endif
