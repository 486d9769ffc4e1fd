// The embedded transformer's parameter layout (native/model.c): the flat buffer is every tensor of
// parameterSpecs() (model.ts) concatenated in canonical order; these find each tensor in it.
#include "model-shapes.h"

#include <stdio.h>

static const char *const layer_tensor_names[LayerTensors] = {
    "ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight", "attn.c_proj.bias",
    "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"};

static int64_t layer_tensor_size(const Dims *s, int index) {
  const int64_t d = s->width;
  const int64_t sizes[LayerTensors] = {d, d, 3 * d * d, 3 * d, d * d, d, d, d, 4 * d * d, 4 * d, 4 * d * d, d};
  return sizes[index];
}

int64_t model_layer_parameter_count(const Dims *s) { return 12 * s->width * s->width + 13 * s->width; }

int64_t model_parameter_count(const Dims *s) {
  return s->vocab * s->width + s->context * s->width + s->layers * model_layer_parameter_count(s) + 2 * s->width +
         s->width * s->vocab;
}

// Tensor `index` of 2 + 12·L + 3 in canonical order: its name (into `name`), offset and size in floats.
void model_parameter_tensor(const Dims *s, int64_t index, char *name, size_t name_size, int64_t *offset,
                            int64_t *size) {
  const int64_t d = s->width, embeddings = s->vocab * d + s->context * d;
  const int64_t final_offset = embeddings + s->layers * model_layer_parameter_count(s);
  if (index == 0) {
    snprintf(name, name_size, "wte.weight");
    *offset = 0, *size = s->vocab * d;
  } else if (index == 1) {
    snprintf(name, name_size, "wpe.weight");
    *offset = s->vocab * d, *size = s->context * d;
  } else if (index < 2 + LayerTensors * s->layers) {
    const int64_t layer = (index - 2) / LayerTensors;
    const int within = (int)((index - 2) % LayerTensors);
    int64_t at = embeddings + layer * model_layer_parameter_count(s);
    for (int i = 0; i < within; i++) at += layer_tensor_size(s, i);
    snprintf(name, name_size, "h.%lld.%s", (long long)layer, layer_tensor_names[within]);
    *offset = at, *size = layer_tensor_size(s, within);
  } else {
    const int64_t last = index - 2 - LayerTensors * s->layers;
    snprintf(name, name_size, "%s", last == 0 ? "ln_f.weight" : last == 1 ? "ln_f.bias" : "lm_head.weight");
    *offset = final_offset + last * d, *size = last == 2 ? d * s->vocab : d;
  }
}

LayerParameters model_layer_parameters(float *base, const Dims *s, int64_t layer) {
  float *p = base + s->vocab * s->width + s->context * s->width + layer * model_layer_parameter_count(s);
  LayerParameters out;
  float **slots[LayerTensors] = {&out.ln1_w, &out.ln1_b, &out.qkv_w, &out.qkv_b, &out.proj_w, &out.proj_b,
                                 &out.ln2_w, &out.ln2_b, &out.fc_w,  &out.fc_b,  &out.fc_proj_w, &out.fc_proj_b};
  for (int i = 0; i < LayerTensors; i++) {
    *slots[i] = p;
    p += layer_tensor_size(s, i);
  }
  return out;
}
