// One row and head of the KV-cached decoding attention (attention.c): the kernel behind decodeAttention
// (the tfjs sampler's native kernel) and model-decode.c (the native model's decoding).
#ifndef CURRICULA_ATTENTION_H
#define CURRICULA_ATTENTION_H

#include <stdbool.h>
#include <stdint.h>

// row: one token's qkv [3d] (q | k | v, q already scaled by 1/sqrt(hd)); key_block [C, hd] and
// value_block ([C, hd], or [hd, C] when values_transposed) this row and head's cache of capacity C.
// Writes head h's k and v into column `column`, then out[hd] = Σ_c softmax_c(q·K[c]) · V[c] over
// c in [first, column]; scores: C floats of scratch.
void att_attend_head(const float *row, int64_t d, int64_t h, int64_t head_size, float *key_block,
                     float *value_block, bool values_transposed, int64_t capacity, int64_t first, int64_t column,
                     float *scores, float *restrict out);

#endif
