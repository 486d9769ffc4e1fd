// Scalar helpers shared by the fused kernels (fused.c) and the native model (model-kernels.c): a
// vectorisable e^x for x ≤ 0 and the tanh-GELU gate built on it. One definition, so both kernels round
// alike. static inline: each translation unit inlines them into its loops.
#ifndef CURRICULA_FAST_MATH_H
#define CURRICULA_FAST_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

// e^x for x ≤ 0, vectorisable (libm's expf is a call per element, ~2× slower here): x = n·ln2 + r with
// |r| ≤ ln2/2, e^r by its degree-6 Taylor polynomial, 2^n from the exponent bits. Relative error below
// 3e-7 (measured against exp in double over [−87, 0]); exactly 0 below −87 (the masked attention scores),
// 1 at 0. The selects below are branch-free only with -fno-trapping-math (binding.gyp).
static inline float exp_nonpositive(float x) {
  const float clamped = x < -87.0f ? -87.0f : x;
  const float shifted = clamped * 1.44269504088896341f + 12582912.0f; // 1.5·2^23: rounds to an integer
  const float n = shifted - 12582912.0f;
  const float r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f; // ln 2 in two parts
  const float p =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
  const int32_t bits = ((int32_t)n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return x < -87.0f ? 0.0f : p * scale;
}

// GELU, tanh approximation in the form of layers.ts: x · s with s = sigmoid(2·sqrt(2/π)·x·(1 + c·x²)).
static const float gelu_scale = 1.5957691216057308f; // 2 · sqrt(2 / π)
static const float gelu_cubic = 0.044715f;

// sigmoid(z) = 1 / (1 + e^−z) for z ≥ 0, e^z / (1 + e^z) below: e^−|z| never overflows.
static inline float gelu_gate(float x) {
  const float z = x * (x * x * gelu_cubic + 1.0f) * gelu_scale;
  const float e = exp_nonpositive(-fabsf(z));
  return (z >= 0 ? 1.0f : e) / (1.0f + e);
}

#endif
