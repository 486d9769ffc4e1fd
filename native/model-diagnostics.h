// Locating the first non-finite value of the embedded transformer's pass (model-diagnostics.c).
#ifndef CURRICULA_MODEL_DIAGNOSTICS_H
#define CURRICULA_MODEL_DIAGNOSTICS_H

#include <stddef.h>
#include <stdint.h>

#include "model-passes.h"
#include "model-shapes.h"

// The index of the first non-finite of x[0..count), −1 when there is none.
int64_t model_first_non_finite(const float *x, int64_t count);

// After a non-finite loss: "<fn>: the loss is <loss>: " and where it first appears, into message[size].
void model_describe_forward_failure(char *message, size_t size, const char *fn, const Inputs *in, const Dims *s,
                                    const Buffers *b, const LayerActivations *acts, double loss);

#endif
