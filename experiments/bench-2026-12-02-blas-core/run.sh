#!/usr/bin/env bash
# OpenBLAS's Haswell kernels (the default on x86-64 with AVX2: src/policy/blas-core.ts) against the CPU's
# own choice (CURRICULA_BLAS_CORE=auto; Cooperlake on this AMD EPYC with AVX-512), 3 alternating runs,
# base model, 1 worker, no PyTorch. Machine: 2 cores, otherwise idle (load average ~1.4: the bench itself).
set -euo pipefail
cd "$(dirname "$0")/../.."
for i in 1 2 3; do
  CURRICULA_BLAS_CORE= node bin/curricula.mjs bench policy --configs base --workers 1 --no-torch --json > "experiments/bench-2026-12-02-blas-core/bench-pin-$i.json"
  CURRICULA_BLAS_CORE=auto node bin/curricula.mjs bench policy --configs base --workers 1 --no-torch --json > "experiments/bench-2026-12-02-blas-core/bench-auto-$i.json"
done
node experiments/bench-2026-12-02-blas-core/summary.mjs
