#!/usr/bin/env bash
# Issue 13 §3.1 on the edge-of-competence ladder (docs/ladder.md): guidance scaffolds against plain GRPO on
# the problems the cold start cannot solve. Per seed:
#   1. the seed's training pool (pool.ts: what every setting of that seed trains on) → pools/pool-s<seed>.jsonl;
#   2. the cold start on that pool, 16 samples per problem (curricula eval --problem-set --per-problem);
#      its zero-success problems (0 of 16) → pools/zero-s<seed>.jsonl;
#   3. each setting trains 300 steps (examples/ladder-<setting>.yaml; 'grpo' is examples/ladder-train.yaml,
#      uniform GRPO with the identity scaffold, and reuses runs/ladder/uniform-s<seed> of the curricula
#      experiment when present: same config, same seed, same run);
#   4. the final checkpoint, UNGUIDED (plain prompts): 16 samples on the zero-success problems (the share
#      solved), and 8 samples on 50 held-out problems per level (pass@1, pass@8).
# Results: results/<setting>-s<seed>.{zero,heldout}.json and results/cold-*.json; analyze.ts makes the table.
# Finished steps are skipped, interrupted runs resumed: re-run after a stop.
#   experiments/ladder-guidance/run.sh [--seeds 1,2,3] [--settings grpo,hints,...] [--jobs 2]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=1,2,3
settings=grpo,hints,oracle-prefix,off-policy-prefix
jobs=2
runs_dir=runs/ladder-guidance
here=experiments/ladder-guidance
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --settings) settings="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--seeds, --settings, --jobs)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir" "$here/pools" "$here/results"
source experiments/lib/run-one.sh
source experiments/lib/eval-json.sh

# 1-2: pools and the cold start's zero-success problems.
for seed in ${seeds//,/ }; do
  pool="$here/pools/pool-s$seed.jsonl"
  [[ -f "$pool" ]] || node --import tsx "$here/pool.ts" examples/ladder-train.yaml "$seed" "$pool"
  eval_json "$here/results/cold-pool-s$seed.json" --checkpoint examples/checkpoints/ladder-cold \
    --problem-set "$pool" --samples 16 --per-problem --seed "$seed"
  zero_success "$here/pools/zero-s$seed.jsonl" "$here/results/cold-pool-s$seed.json" "$pool"
  eval_json "$here/results/cold-s$seed.heldout.json" --checkpoint examples/checkpoints/ladder-cold \
    --tasks addition:1-8 --problems 50 --samples 8 --seed 11
done

# 3-4: one job per setting × seed (training, then the two unguided evaluations).
one() {
  local setting="$1" seed="$2" runs_dir="$3" here="$4" config name dir
  name="$setting-s$seed"
  dir="$runs_dir/$name"
  if [[ "$setting" == grpo && -f "runs/ladder/uniform-s$seed/result.json" ]]; then
    dir="runs/ladder/uniform-s$seed"
  else
    config="examples/ladder-$setting.yaml"
    [[ "$setting" == grpo ]] && config=examples/ladder-train.yaml
    run_one "$config" "$name" "$runs_dir" --seed "$seed" --workers 1 || return 1
  fi
  local model="$dir/checkpoints/$(cat "$dir/checkpoints/LATEST")/model"
  eval_json "$here/results/$name.zero.json" --checkpoint "$model" --problem-set "$here/pools/zero-s$seed.jsonl" \
    --samples 16 --per-problem --seed "$seed" &&
  eval_json "$here/results/$name.heldout.json" --checkpoint "$model" --tasks addition:1-8 --problems 50 \
    --samples 8 --seed 11 && echo "evaluated $name $(date -u +%H:%M:%S)"
}
export -f one
for seed in ${seeds//,/ }; do
  for setting in ${settings//,/ }; do echo "$setting $seed $runs_dir $here"; done
done | xargs -P "$jobs" -L 1 bash -c 'one "$@"' _
# Raw results to commit: every run of this experiment that was evaluated (grpo's runs live in the curricula
# experiment's raw/).
source experiments/lib/save-raw.sh
save_raw "$runs_dir" "$here/raw" $(cd "$here/results" && ls -- *.heldout.json | sed 's/\.heldout\.json$//' | grep -v -e '^cold-' -e '^grpo-')
