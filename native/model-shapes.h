// The shapes shared by native/model*.c (the embedded transformer's forward and backward, model.c): the
// model's dimensions, where each parameter tensor lies in the flat canonical-order buffer, and the records
// of the activations the passes save (model-passes.c) in the arena (model.c).
#ifndef CURRICULA_MODEL_SHAPES_H
#define CURRICULA_MODEL_SHAPES_H

#include <stddef.h>
#include <stdint.h>

// ---------------------------------------------------------------------------------------------- shapes

typedef struct {
  int64_t vocab, width, layers, heads, context, head_width, rows, time, tokens;
} Dims;

// One block's tensors, in canonical order (layers.ts blockParameterNames).
enum { LayerTensors = 12 };
typedef struct {
  float *ln1_w, *ln1_b, *qkv_w, *qkv_b, *proj_w, *proj_b, *ln2_w, *ln2_b, *fc_w, *fc_b, *fc_proj_w, *fc_proj_b;
} LayerParameters;

int64_t model_layer_parameter_count(const Dims *s);

int64_t model_parameter_count(const Dims *s);

// Tensor `index` of 2 + 12·L + 3 in canonical order: its name (into `name`), offset and size in floats.
void model_parameter_tensor(const Dims *s, int64_t index, char *name, size_t name_size, int64_t *offset,
                            int64_t *size);

LayerParameters model_layer_parameters(float *base, const Dims *s, int64_t layer);

// ----------------------------------------------------------------------------------------------- arena

// Saved activations of one block, all [N, ·] row-major: what its backward pass reads.
typedef struct {
  float *ln1, *ln1_mean, *ln1_rstd; // [N, d], [N], [N]
  float *qkv;                       // [N, 3d], columns q | k | v, head h at h·hd within each
  float *att;                       // [B, H, T, T] softmax probabilities, 0 above the diagonal
  float *att_out;                   // [N, d] heads merged, before c_proj
  float *x1;                        // [N, d] residual after attention
  float *ln2, *ln2_mean, *ln2_rstd; // [N, d], [N], [N]
  float *fc;                        // [N, 4d] before GELU
  float *out;                       // [N, d] residual after the MLP: the next block's input
} LayerActivations;

typedef struct {
  float *gradients;                 // [P] this call's gradient (added to the caller's at the end)
  float *logprobs;                  // [N]
  float *x0;                        // [N, d] wte[input] + wpe[t]
  float *lnf, *lnf_mean, *lnf_rstd; // [N, d], [N], [N]
  float *logits;                    // [N, V], overwritten by dLoss/dlogits
  float *gelu, *d_hidden;           // [N, 4d] GELU output (forward, recomputed backward), its gradient
  float *d_residual, *d_norm;       // [N, d] gradient of the residual stream; of a LayerNorm's output
  float *d_qkv;                     // [N, 3d]
  float *d_scores;                  // [T, T] one head's attention gradient
} Buffers;

#endif
