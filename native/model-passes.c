// The embedded transformer's passes (native/model.c): forward through every block into the logits, the
// loss with dLoss/dlogits, and backward through the blocks in reverse over the saved activations, on the
// kernels of model-kernels.c and the buffers that model.c carves out of its arena.
#include "model-passes.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model-kernels.h"
#include "model-profile.h"

const char *const model_phase_names[PhaseCount] = {
    "embedding",        "layerNorm",        "matmul",         "bias",
    "attention",        "gelu",             "loss",           "matmulBackward",
    "biasBackward",     "attentionBackward", "geluBackward",  "layerNormBackward",
};

_Thread_local ModelProfile *model_profile = NULL;

// FLOPs of an [m,k]@[k,n] product.
static double products(int64_t m, int64_t n, int64_t k) { return 2.0 * (double)m * (double)n * (double)k; }

void model_forward(const Inputs *in, const Dims *s, Buffers *b, LayerActivations *acts) {
  const int64_t N = s->tokens, d = s->width, V = s->vocab;
  float *params = (float *)in->params; // read only; model_layer_parameters takes a mutable base for the gradients
  const float *wte = params, *wpe = params + V * d;
  MODEL_TIMED(PhaseEmbedding, 0, for (int64_t n = 0; n < N; n++) {
    const float *token = wte + (int64_t)in->inputs[n] * d, *position = wpe + (n % s->time) * d;
    for (int64_t j = 0; j < d; j++) b->x0[n * d + j] = token[j] + position[j];
  });
  const double attention_flops = model_attention_flops(s, 2);
  const float *x = b->x0;
  for (int64_t l = 0; l < s->layers; l++) {
    const LayerParameters w = model_layer_parameters(params, s, l);
    LayerActivations *a = &acts[l];
    MODEL_TIMED(PhaseLayerNorm, 0, model_layer_norm_forward(a->ln1, a->ln1_mean, a->ln1_rstd, x, w.ln1_w, w.ln1_b, N, d));
    MODEL_TIMED(PhaseBias, 0, model_rows_plus_bias(a->qkv, NULL, w.qkv_b, N, 3 * d));
    MODEL_TIMED(PhaseMatmul, products(N, 3 * d, d),
                model_gemm(false, false, N, 3 * d, d, 1.0f, a->ln1, d, w.qkv_w, 3 * d, 1.0f, a->qkv, 3 * d));
    MODEL_TIMED(PhaseAttention, attention_flops, model_attention_forward(a->att_out, a->att, a->qkv, s));
    MODEL_TIMED(PhaseBias, 0, model_rows_plus_bias(a->x1, x, w.proj_b, N, d));
    MODEL_TIMED(PhaseMatmul, products(N, d, d),
                model_gemm(false, false, N, d, d, 1.0f, a->att_out, d, w.proj_w, d, 1.0f, a->x1, d));
    MODEL_TIMED(PhaseLayerNorm, 0,
                model_layer_norm_forward(a->ln2, a->ln2_mean, a->ln2_rstd, a->x1, w.ln2_w, w.ln2_b, N, d));
    MODEL_TIMED(PhaseBias, 0, model_rows_plus_bias(a->fc, NULL, w.fc_b, N, 4 * d));
    MODEL_TIMED(PhaseMatmul, products(N, 4 * d, d),
                model_gemm(false, false, N, 4 * d, d, 1.0f, a->ln2, d, w.fc_w, 4 * d, 1.0f, a->fc, 4 * d));
    MODEL_TIMED(PhaseGelu, 0, model_gelu_forward(b->gelu, a->fc, N * 4 * d));
    MODEL_TIMED(PhaseBias, 0, model_rows_plus_bias(a->out, a->x1, w.fc_proj_b, N, d));
    MODEL_TIMED(PhaseMatmul, products(N, d, 4 * d),
                model_gemm(false, false, N, d, 4 * d, 1.0f, b->gelu, 4 * d, w.fc_proj_w, d, 1.0f, a->out, d));
    x = a->out;
  }
  const float *final = params + V * d + s->context * d + s->layers * model_layer_parameter_count(s);
  MODEL_TIMED(PhaseLayerNorm, 0, model_layer_norm_forward(b->lnf, b->lnf_mean, b->lnf_rstd, x, final, final + d, N, d));
  MODEL_TIMED(PhaseMatmul, products(N, V, d),
              model_gemm(false, false, N, V, d, 1.0f, b->lnf, d, final + 2 * d, V, 0.0f, b->logits, V));
}

// Log-probs of the targets, the loss Σ w·logp (+ Σ e·H with entropy weights), and dLoss/dlogits in place
// of the logits: w·(onehot(target) − softmax), and for the entropy H = −Σ_v p_v·log p_v of the position,
// dH/dz_v = −p_v·(log p_v + H). Sums in double.
static double loss_and_logit_gradient(const Inputs *in, const Dims *s, Buffers *b) {
  const int64_t V = s->vocab;
  double loss = 0;
  for (int64_t n = 0; n < s->tokens; n++) {
    float *row = b->logits + n * V;
    float max = row[0];
    for (int64_t v = 1; v < V; v++) max = row[v] > max ? row[v] : max;
    double sum = 0;
    for (int64_t v = 0; v < V; v++) sum += exp((double)row[v] - max);
    const double log_sum = max + log(sum);
    const double logp = row[in->targets[n]] - log_sum;
    b->logprobs[n] = (float)logp;
    const float w = in->weights[n];
    const float e = in->entropy_weights ? in->entropy_weights[n] : 0.0f;
    double entropy = 0;
    if (e != 0 || in->entropies) {
      for (int64_t v = 0; v < V; v++) {
        const double lp = (double)row[v] - log_sum;
        entropy -= exp(lp) * lp;
      }
      if (in->entropies) in->entropies[n] = (float)entropy;
    }
    loss += (double)w * logp + (double)e * entropy;
    for (int64_t v = 0; v < V; v++) {
      const double lp = (double)row[v] - log_sum;
      const double p = exp(lp);
      row[v] = (float)(-(double)w * p - (double)e * p * (lp + entropy));
    }
    row[in->targets[n]] += w;
  }
  return loss;
}

double model_loss_and_logit_gradient(const Inputs *in, const Dims *s, Buffers *b) {
  double loss = 0;
  MODEL_TIMED(PhaseLoss, 0, loss = loss_and_logit_gradient(in, s, b));
  return loss;
}

void model_backward(const Inputs *in, const Dims *s, Buffers *b, LayerActivations *acts, double *sums) {
  const int64_t N = s->tokens, d = s->width, V = s->vocab;
  float *params = (float *)in->params;
  const int64_t final_offset = V * d + s->context * d + s->layers * model_layer_parameter_count(s);
  const float *final = params + final_offset;
  float *g_final = b->gradients + final_offset;
  const float *x_last = s->layers > 0 ? acts[s->layers - 1].out : b->x0;
  const double attention_flops = model_attention_flops(s, 4);
  // lm_head and ln_f
  MODEL_TIMED(PhaseMatmulBackward, 2 * products(N, V, d),
              model_gemm(true, false, d, V, N, 1.0f, b->lnf, d, b->logits, V, 1.0f, g_final + 2 * d, V);
              model_gemm(false, true, N, d, V, 1.0f, b->logits, V, final + 2 * d, V, 0.0f, b->d_norm, d));
  memset(b->d_residual, 0, (size_t)(N * d) * sizeof(float));
  MODEL_TIMED(PhaseLayerNormBackward, 0,
              model_layer_norm_backward(b->d_residual, g_final, g_final + d, b->d_norm, x_last, b->lnf_mean,
                                        b->lnf_rstd, final, N, d, sums));
  for (int64_t l = s->layers - 1; l >= 0; l--) {
    const LayerParameters w = model_layer_parameters(params, s, l);
    const LayerParameters g = model_layer_parameters(b->gradients, s, l);
    const LayerActivations *a = &acts[l];
    const float *x = l > 0 ? acts[l - 1].out : b->x0;
    // MLP: out = x1 + gelu(ln2 @ W_fc + b_fc) @ W_proj + b_proj
    MODEL_TIMED(PhaseMatmulBackward, products(N, 4 * d, d),
                model_gemm(false, true, N, 4 * d, d, 1.0f, b->d_residual, d, w.fc_proj_w, d, 0.0f, b->d_hidden, 4 * d));
    MODEL_TIMED(PhaseGeluBackward, 0, model_gelu_backward(b->gelu, b->d_hidden, a->fc, N * 4 * d));
    MODEL_TIMED(PhaseMatmulBackward, products(4 * d, d, N),
                model_gemm(true, false, 4 * d, d, N, 1.0f, b->gelu, 4 * d, b->d_residual, d, 1.0f, g.fc_proj_w, d));
    MODEL_TIMED(PhaseBiasBackward, 0, model_add_column_sums(g.fc_proj_b, b->d_residual, N, d, sums));
    MODEL_TIMED(PhaseMatmulBackward, products(d, 4 * d, N),
                model_gemm(true, false, d, 4 * d, N, 1.0f, a->ln2, d, b->d_hidden, 4 * d, 1.0f, g.fc_w, 4 * d));
    MODEL_TIMED(PhaseBiasBackward, 0, model_add_column_sums(g.fc_b, b->d_hidden, N, 4 * d, sums));
    MODEL_TIMED(PhaseMatmulBackward, products(N, d, 4 * d),
                model_gemm(false, true, N, d, 4 * d, 1.0f, b->d_hidden, 4 * d, w.fc_w, 4 * d, 0.0f, b->d_norm, d));
    MODEL_TIMED(PhaseLayerNormBackward, 0,
                model_layer_norm_backward(b->d_residual, g.ln2_w, g.ln2_b, b->d_norm, a->x1, a->ln2_mean,
                                          a->ln2_rstd, w.ln2_w, N, d, sums));
    // attention: x1 = x + attention(ln1 @ W_qkv + b_qkv) @ W_proj + b_proj
    MODEL_TIMED(PhaseMatmulBackward, products(d, d, N),
                model_gemm(true, false, d, d, N, 1.0f, a->att_out, d, b->d_residual, d, 1.0f, g.proj_w, d));
    MODEL_TIMED(PhaseBiasBackward, 0, model_add_column_sums(g.proj_b, b->d_residual, N, d, sums));
    MODEL_TIMED(PhaseMatmulBackward, products(N, d, d),
                model_gemm(false, true, N, d, d, 1.0f, b->d_residual, d, w.proj_w, d, 0.0f, b->d_norm, d));
    MODEL_TIMED(PhaseAttentionBackward, attention_flops,
                model_attention_backward(b->d_qkv, b->d_scores, b->d_norm, a->qkv, a->att, s));
    MODEL_TIMED(PhaseMatmulBackward, products(d, 3 * d, N),
                model_gemm(true, false, d, 3 * d, N, 1.0f, a->ln1, d, b->d_qkv, 3 * d, 1.0f, g.qkv_w, 3 * d));
    MODEL_TIMED(PhaseBiasBackward, 0, model_add_column_sums(g.qkv_b, b->d_qkv, N, 3 * d, sums));
    MODEL_TIMED(PhaseMatmulBackward, products(N, d, 3 * d),
                model_gemm(false, true, N, d, 3 * d, 1.0f, b->d_qkv, 3 * d, w.qkv_w, 3 * d, 0.0f, b->d_norm, d));
    MODEL_TIMED(PhaseLayerNormBackward, 0,
                model_layer_norm_backward(b->d_residual, g.ln1_w, g.ln1_b, b->d_norm, x, a->ln1_mean, a->ln1_rstd,
                                          w.ln1_w, N, d, sums));
  }
  float *g_wte = b->gradients, *g_wpe = b->gradients + V * d;
  MODEL_TIMED(PhaseEmbedding, 0, for (int64_t n = 0; n < N; n++) {
    const float *dx = b->d_residual + n * d;
    float *token = g_wte + (int64_t)in->inputs[n] * d, *position = g_wpe + (n % s->time) * d;
    for (int64_t j = 0; j < d; j++) {
      token[j] += dx[j];
      position[j] += dx[j];
    }
  });
}
