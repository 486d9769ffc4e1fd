// Where a non-finite value first appears in the embedded transformer's pass (native/model.c): the message
// model.c throws after a non-finite loss, and the scan it also runs over the gradient.
#include "model-diagnostics.h"

#include <math.h>
#include <stdio.h>

int64_t model_first_non_finite(const float *x, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    if (!isfinite(x[i])) return i;
  return -1;
}

// After a non-finite loss: the first parameter tensor, else the first saved activation, that holds one.
// The message starts with `fn`, the entry point's name.
void model_describe_forward_failure(char *message, size_t size, const char *fn, const Inputs *in, const Dims *s,
                                    const Buffers *b, const LayerActivations *acts, double loss) {
  char name[64];
  int64_t offset, count;
  const int64_t tensors = 2 + LayerTensors * s->layers + 3;
  for (int64_t i = 0; i < tensors; i++) {
    model_parameter_tensor(s, i, name, sizeof name, &offset, &count);
    if (model_first_non_finite(in->params + offset, count) >= 0) {
      snprintf(message, size, "%s: the loss is %g: parameter %s holds a non-finite value", fn, loss, name);
      return;
    }
  }
  const int64_t N = s->tokens, d = s->width;
  if (model_first_non_finite(b->x0, N * d) >= 0) {
    snprintf(message, size, "%s: the loss is %g: first non-finite in the embeddings (wte + wpe)", fn, loss);
    return;
  }
  for (int64_t l = 0; l < s->layers; l++) {
    const LayerActivations *a = &acts[l];
    const struct {
      const float *x;
      int64_t count;
      const char *what;
    } checks[] = {
        {a->ln1, N * d, "ln_1 output"},         {a->qkv, 3 * N * d, "attn.c_attn output"},
        {a->att, N * s->heads * s->time, "attention probabilities"}, {a->att_out, N * d, "attention output"},
        {a->x1, N * d, "residual after attn.c_proj"}, {a->ln2, N * d, "ln_2 output"},
        {a->fc, 4 * N * d, "mlp.c_fc output"},  {a->out, N * d, "residual after mlp.c_proj"},
    };
    for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++) {
      if (model_first_non_finite(checks[c].x, checks[c].count) >= 0) {
        snprintf(message, size, "%s: the loss is %g: first non-finite in h.%lld %s", fn, loss, (long long)l,
                 checks[c].what);
        return;
      }
    }
  }
  if (model_first_non_finite(b->lnf, N * d) >= 0)
    snprintf(message, size, "%s: the loss is %g: first non-finite in the ln_f output", fn, loss);
  else
    snprintf(message, size, "%s: the loss is %g: the logits overflow (lm_head)", fn, loss);
}
