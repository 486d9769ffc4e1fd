#!/usr/bin/env bash
# Claim (iii) on the new ladder (issue 28 item 6): guidance on the problems a cold start cannot solve, against
# the re-draw control, and transfer to unguided prompts. For each ladder-v2 cold start (s2, s3, s4), one RL
# seed (1), a paired design blocked by cold start:
#   1. the training pool of seed 1 (../ladder-guidance/pool.ts over grpo.yaml; the same 500 problems for every
#      cold start and arm) → pools/pool.jsonl;
#   2. the cold start on that pool, 16 samples per problem at T = 1, sampling seed 1; its zero-success problems
#      (0 of 16) → pools/zero-<cold>.jsonl;
#   3. the re-draw control: the UNCHANGED cold start on its zero-success problems again, 16 samples with a
#      fresh sampling seed (101) — what "solved after training" would read with no training at all, since a
#      problem picked for 0/16 on one draw is often solved on another (regression to the mean);
#   4. the two arms train 200 steps: grpo.yaml (plain GRPO) and oracle-prefix.yaml (POPE oracle prefixes);
#   5. each final checkpoint UNGUIDED (bare prompts) on its cold start's zero-success problems: 16 samples,
#      sampling seed 101 (as the control); held-out pass@1 comes from the runs' own evaluation at step 200.
# Results: results/*.json; analyze.ts makes the tables. Finished steps are skipped, interrupted runs resumed.
#   experiments/ladder-v2-guidance/run.sh [--colds s2,s3,s4] [--settings grpo,oracle-prefix] [--jobs 2]
set -euo pipefail
cd "$(dirname "$0")/../.."
colds=s2,s3,s4
settings=grpo,oracle-prefix
jobs=2
runs_dir=runs/ladder-v2-guidance
here=experiments/ladder-v2-guidance
while [[ $# -gt 0 ]]; do
  case "$1" in
    --colds) colds="$2"; shift 2 ;;
    --settings) settings="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--colds, --settings, --jobs)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir" "$here/pools" "$here/results"
source experiments/lib/run-one.sh
source experiments/lib/eval-json.sh
pool="$here/pools/pool.jsonl"
[[ -f "$pool" ]] || node --import tsx experiments/ladder-guidance/pool.ts "$here/grpo.yaml" 1 "$pool"

# 1-3, one job per cold start: its pool evaluation, zero-success set and re-draw control.
cold_one() {
  local cold="$1" here="$2" pool="$3" checkpoint="examples/checkpoints/ladder-v2-cold-$1"
  eval_json "$here/results/cold-$cold.pool.json" --checkpoint "$checkpoint" --problem-set "$pool" --samples 16 \
    --per-problem --seed 1 || return 1
  local zero="$here/pools/zero-$cold.jsonl"
  zero_success "$zero" "$here/results/cold-$cold.pool.json" "$pool" || return 1
  eval_json "$here/results/cold-$cold.redraw.json" --checkpoint "$checkpoint" --problem-set "$zero" --samples 16 \
    --per-problem --seed 101 && echo "cold start $cold evaluated $(date -u +%H:%M:%S)"
}
export -f cold_one
for cold in ${colds//,/ }; do echo "$cold $here $pool"; done | xargs -P "$jobs" -L 1 bash -c 'cold_one "$@"' _

# 4-5, one job per arm × cold start: training, then the unguided evaluation on the zero-success set.
one() {
  local setting="$1" cold="$2" runs_dir="$3" here="$4" name="$1-$2"
  local dir="$runs_dir/$name"
  run_one "$here/$setting.yaml" "$name" "$runs_dir" --set "init.checkpoint=examples/checkpoints/ladder-v2-cold-$cold" \
    --workers 1 || return 1
  local model="$dir/checkpoints/$(cat "$dir/checkpoints/LATEST")/model"
  eval_json "$here/results/$name.zero.json" --checkpoint "$model" --problem-set "$here/pools/zero-$cold.jsonl" \
    --samples 16 --per-problem --seed 101 && echo "evaluated $name $(date -u +%H:%M:%S)"
}
export -f one
for cold in ${colds//,/ }; do
  for setting in ${settings//,/ }; do echo "$setting $cold $runs_dir $here"; done
done | xargs -P "$jobs" -L 1 bash -c 'one "$@"' _
source experiments/lib/save-raw.sh
save_raw "$runs_dir" "$here/raw" $(cd "$here/results" && ls -- *.zero.json | sed 's/\.zero\.json$//')
