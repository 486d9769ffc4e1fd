#!/usr/bin/env bash
# The embedded constraints judge (issue 31 item 5): its accuracy against the code-checked truth, read two
# ways, and its cost as a reward (issue 31's judge targets).
#   experiments/judge-agreement/run.sh [checkpoint]      (default: examples/checkpoints/constraints-judge)
# 1. `curricula eval` on the held-out partition of constraints-judge, 200 problems per level, greedy: the
#    judge's own A:PASS|FAIL line against the truth (pass@1 = accuracy).
# 2. `curricula bench rewards --only judge-score`, 3 runs: the judge served in process and read by the
#    judge-score reward (its Verdict line), agreement on 256 candidate answers of the constraints task
#    (seeded; drawn from the constraints-judge generator, not its held-out split), verdicts/s, latency,
#    the cache, and the reward share of an RL step.
# Writes results/*.json and results/summary.md (analyze.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/judge-agreement
checkpoint=${1:-examples/checkpoints/constraints-judge}
mkdir -p $E/results
node bin/curricula.mjs eval --checkpoint "$checkpoint" --tasks constraints-judge:1-5 --problems 200 --json \
  > $E/results/eval.json
for run in 1 2 3; do
  node bin/curricula.mjs bench rewards --only judge-score --judge-checkpoint "$checkpoint" --judge-items 256 --json \
    > $E/results/bench-$run.json
done
python3 $E/analyze.py > $E/results/summary.md
cat $E/results/summary.md
