#!/usr/bin/env bash
# Issue 29's training-step target at batch 8 and 32 (base) on the native engine, now the default, against
# the best PyTorch cell (torch × OpenBLAS threads 1-2), measured side by side in each invocation, 3 rounds,
# machine otherwise idle. Raw JSON per round in this folder; README.md reads them.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/bench-2026-12-07
for round in 1 2 3; do
  for batch in 8 32; do
    node bin/curricula.mjs bench policy --configs base --workers 1 --train-batch "$batch" --engine native --json \
      > "$out/policy-b$batch-r$round.json"
  done
done
# The demo on both engines, alternating, 2 rounds (wall time and peak RSS into demo/).
mkdir -p "$out/demo"
for round in 1 2; do
  for engine in native tfjs; do
    /usr/bin/time -f "%e s %M KB" -o "$out/demo/$engine-$round.time" env CURRICULA_ENGINE="$engine" \
      node bin/curricula.mjs demo --runs-dir "$(mktemp -d)" --name "demo-$engine-$round" --json --quiet > /dev/null
  done
done
