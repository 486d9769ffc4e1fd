// Where native/model.c's time goes (issue 29 item 5): per phase of the pass, the seconds spent, the
// matrix-product FLOPs done and the calls, summed over the threads of a call while profiling is on
// (modelProfile, model.c). Each thread of a call points model_profile at its own record; with profiling
// off it is NULL and a timed section costs one test.
#ifndef CURRICULA_MODEL_PROFILE_H
#define CURRICULA_MODEL_PROFILE_H

#include <stdint.h>
#include <time.h>

// The phases, in the order modelProfile reports them; model_phase_names (model-passes.c) spells them.
typedef enum {
  PhaseEmbedding,         // wte[input] + wpe[t], and its gradient
  PhaseLayerNorm,         // LayerNorm forward
  PhaseMatmul,            // the linear layers' products: c_attn, c_proj, c_fc, mlp.c_proj, lm_head
  PhaseBias,              // bias and residual added before a product
  PhaseAttention,         // scores, causal softmax and P·V of every head (products and softmax)
  PhaseGelu,              // GELU forward
  PhaseLoss,              // log-softmax of the targets, the loss and dLoss/dlogits
  PhaseMatmulBackward,    // the linear layers' input and weight gradients
  PhaseBiasBackward,      // bias gradients (column sums)
  PhaseAttentionBackward, // dP, dV, the softmax backward, dQ, dK of every head
  PhaseGeluBackward,      // GELU backward
  PhaseLayerNormBackward, // LayerNorm backward
  PhaseCount
} ModelPhase;

extern const char *const model_phase_names[PhaseCount];

typedef struct {
  double seconds[PhaseCount];
  double flops[PhaseCount];
  double calls[PhaseCount];
} ModelProfile;

// This thread's record while a profiled call runs (NULL otherwise).
extern _Thread_local ModelProfile *model_profile;

// Seconds on the monotonic clock.
static inline double model_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

// model_now() while this thread profiles, else 0 (no clock read).
static inline double model_clock(void) { return model_profile ? model_now() : 0; }

static inline void model_phase_end(ModelPhase phase, double start, double flops) {
  if (!model_profile) return;
  model_profile->seconds[phase] += model_clock() - start;
  model_profile->flops[phase] += flops;
  model_profile->calls[phase] += 1;
}

// Runs the statements after `flops` as one timed section of `phase`.
#define MODEL_TIMED(phase, flops, ...)                                                                    \
  do {                                                                                                  \
    const double timed_start_ = model_clock();                                                          \
    __VA_ARGS__;                                                                                        \
    model_phase_end((phase), timed_start_, (flops));                                                    \
  } while (0)

#endif
