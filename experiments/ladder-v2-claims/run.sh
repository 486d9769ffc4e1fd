#!/usr/bin/env bash
# Issue 28 item 6 on the new ladder (experiments/ladder-v2): one RL seed on each of the three cold starts
# (examples/checkpoints/ladder-v2-cold-s{2,3,4}), a paired design blocked by cold start.
#   1. selectors (claim i): uniform and sec (Self-Evolving Curriculum) × the 3 cold starts;
#   2. the zero-learning-rate control: uniform with train.learningRate=0 × the 3 cold starts, 50 steps (a
#      model that is not updated is the same model at step 50 as at step 200; evaluations at 0 and 50);
#   3. filtering (claim ii): dapo (algorithm.dynamicSampling: drop groups whose 8 rewards are equal and
#      sample again, up to 3 extra rounds) and balanced (the online-filtering selector) × the 3 cold starts,
#      compared with uniform at equal steps and at equal sampled tokens.
# Each is a `curricula sweep` (resumable: run again after a stop; finished runs are skipped).
#   experiments/ladder-v2-claims/run.sh [--concurrency 2] [--only selectors|lr0|filters]
set -euo pipefail
cd "$(dirname "$0")/../.."
concurrency=2
only=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --concurrency) concurrency="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--concurrency, --only)" >&2; exit 2 ;;
  esac
done
config=experiments/ladder-v2-claims/rl.yaml
colds=examples/checkpoints/ladder-v2-cold-s2,examples/checkpoints/ladder-v2-cold-s3,examples/checkpoints/ladder-v2-cold-s4
if [[ -z "$only" || "$only" == selectors ]]; then
  ./bin/curricula.mjs sweep --config "$config" --grid selector.name=uniform,sec --grid "init.checkpoint=$colds" \
    --seeds 1 --out runs/ladder-v2-claims/selectors --concurrency "$concurrency"
fi
if [[ -z "$only" || "$only" == lr0 ]]; then
  ./bin/curricula.mjs sweep --config "$config" --grid "init.checkpoint=$colds" --set train.learningRate=0 --set train.steps=50 \
    --seeds 1 --out runs/ladder-v2-claims/lr0 --concurrency "$concurrency" --prefix lr0
fi
if [[ -z "$only" || "$only" == filters ]]; then
  # two sweeps (each its own directory and sweep.json) side by side, sharing the concurrency
  half=$(( concurrency > 1 ? concurrency / 2 : 1 ))
  ./bin/curricula.mjs sweep --config "$config" --grid "init.checkpoint=$colds" --set algorithm.dynamicSampling.enabled=true \
    --seeds 1 --out runs/ladder-v2-claims/dapo --concurrency "$half" --prefix dapo &
  dapo=$!
  ./bin/curricula.mjs sweep --config "$config" --grid "init.checkpoint=$colds" --set selector.name=balanced \
    --seeds 1 --out runs/ladder-v2-claims/balanced --concurrency "$half" --prefix balanced &
  balanced=$!
  wait "$dapo"
  wait "$balanced"
fi
