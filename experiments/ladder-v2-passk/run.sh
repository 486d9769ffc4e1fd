#!/usr/bin/env bash
# Claim (v) at large k on the new ladder (issue 28 item 6): pass@k for k = 1 … 64 before RL (each ladder-v2
# cold start) and after (the final checkpoint of plain GRPO on it, 200 steps: runs/ladder-v2-guidance/grpo-<cold>,
# bit for bit the uniform runs of ladder-v2-claims), on the same held-out problems (40 per level of
# aligned-addition 1-10, canonical split, problem seed 11) with the same sampling seed, 64 samples each at T = 1.
# Needs the runs of experiments/ladder-v2-guidance/run.sh (their checkpoints are not committed).
#   bash experiments/ladder-v2-passk/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
here=experiments/ladder-v2-passk
mkdir -p "$here/results"
evaluate() { # evaluate OUT CHECKPOINT
  [[ -f "$1" ]] && { echo "skip $1"; return 0; }
  echo "$(date -u +%H:%M:%S) $1"
  ./bin/curricula.mjs eval --checkpoint "$2" --tasks aligned-addition:1-10 --partition canonical --problems 40 \
    --samples 64 --temperature 1 --seed 11 --quiet --json > "$1.tmp" && mv "$1.tmp" "$1"
}
for cold in s2 s3 s4; do
  evaluate "$here/results/cold-$cold.json" "examples/checkpoints/ladder-v2-cold-$cold"
  run=runs/ladder-v2-guidance/grpo-$cold
  evaluate "$here/results/grpo-$cold.json" "$run/checkpoints/$(cat "$run/checkpoints/LATEST")/model"
done
