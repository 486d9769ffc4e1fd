#!/usr/bin/env bash
# Issue 30's overhead target: the demo's RL step (examples/demo-train.yaml: 16 problems × 8 samples,
# maxTokens 64, 2 workers) with every member sampled as a tag-tools episode (rollout.environment) against
# plain single-turn sampling, 20 steps each, evaluation off, two rounds alternating. The shipped cold start
# never writes a tool call, so every episode is one turn: what is measured is the episode path's own cost
# (one environment and one sampling row per member, the runner's bookkeeping), not tool time.
#   bash experiments/env-overhead-2026-12-04/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/env-overhead-2026-12-04
runs=$(mktemp -d)
for round in 1 2; do
  for arm in plain environment; do
    extra=()
    [[ "$arm" == environment ]] && extra=(--set 'rollout.environment={name: tag-tools}')
    echo "$(date -u +%H:%M:%S) $arm-r$round"
    ./bin/curricula.mjs train --config examples/demo-train.yaml --name "$arm-r$round" --steps 20 \
      --set eval.every=0 --set "runsDir=$runs" --no-report --quiet "${extra[@]}"
    cp "$runs/$arm-r$round/metrics.jsonl" "$out/$arm-r$round.metrics.jsonl"
  done
done
rm -rf "$runs"
