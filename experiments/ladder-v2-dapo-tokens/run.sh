#!/usr/bin/env bash
# Claim (ii) at equal sampled tokens, read off a denser curve (issue 28 item 6): ladder-v2-claims measured
# dapo's dynamic sampling only every 50 steps, so at uniform's total tokens it could give only a lower and an
# upper bound. Here uniform and dapo run again, the claims' rl.yaml unchanged but with held-out evaluations
# every 25 steps (the evaluation schedule does not touch training: each run repeats its ladder-v2-claims
# twin to the last digit), on the three ladder-v2 cold starts, one RL seed, paired by cold start.
# Each is a `curricula sweep` (resumable: run again after a stop; finished runs are skipped).
#   experiments/ladder-v2-dapo-tokens/run.sh [--concurrency 2]
set -euo pipefail
cd "$(dirname "$0")/../.."
concurrency=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --concurrency) concurrency="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--concurrency)" >&2; exit 2 ;;
  esac
done
config=experiments/ladder-v2-claims/rl.yaml
colds=examples/checkpoints/ladder-v2-cold-s2,examples/checkpoints/ladder-v2-cold-s3,examples/checkpoints/ladder-v2-cold-s4
half=$(( concurrency > 1 ? concurrency / 2 : 1 ))
./bin/curricula.mjs sweep --config "$config" --grid "init.checkpoint=$colds" --set eval.every=25 \
  --seeds 1 --out runs/ladder-v2-dapo-tokens/uniform --concurrency "$half" --prefix uniform &
uniform=$!
./bin/curricula.mjs sweep --config "$config" --grid "init.checkpoint=$colds" --set eval.every=25 \
  --set algorithm.dynamicSampling.enabled=true --seeds 1 --out runs/ladder-v2-dapo-tokens/dapo \
  --concurrency "$half" --prefix dapo &
dapo=$!
wait "$uniform"
wait "$dapo"
