#!/usr/bin/env bash
# Issue 12 item 4 on the edge-of-competence ladder (docs/ladder.md): every setting × seed from
# examples/ladder-train.yaml (300 steps of uniform GRPO on 1-8 digit addition from ladder-cold), two runs
# at a time with one worker each. Settings (run name = <setting>-s<seed> under runs/ladder/):
#   (i)   uniform, sec, dump, bots, adarft, learning-progress, e2h: selector.name (e2h needs totalSteps)
#   (iv)  budget: uniform + rollout.budget.enabled (the adaptive rollout budget)
#   (ii)  balanced (online filtering), dapo (algorithm.dynamicSampling), vcrl (algorithm.vcrlFilter,
#         κ 0.3: the same groups as dapo with 8 binary rewards), vcrl06 (κ 0.6)
# Jobs run seed by seed (all settings of seed 1 first), so a stopped queue leaves complete seeds. A finished
# run (result.json present) is skipped and an interrupted one resumed: re-run after a crash or a stop.
#   experiments/ladder-curricula/run.sh [--seeds 1,2,3] [--settings uniform,sec,...] [--jobs 2]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=1,2,3
settings=uniform,sec,dump,bots,adarft,learning-progress,e2h,budget,balanced,dapo,vcrl,vcrl06
jobs=2
runs_dir=runs/ladder
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --settings) settings="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --runs-dir) runs_dir="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--seeds, --settings, --jobs, --runs-dir)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir"

# The overrides of one setting, on one line.
overrides() {
  case "$1" in
    uniform|sec|dump|bots|adarft|learning-progress|balanced) echo "--set selector.name=$1" ;;
    e2h) echo "--set selector.name=e2h --set selector.options.totalSteps=300" ;;
    budget) echo "--set rollout.budget.enabled=true" ;;
    dapo) echo "--set algorithm.dynamicSampling.enabled=true" ;;
    vcrl) echo "--set algorithm.vcrlFilter.enabled=true" ;;
    # κ = 0.3 keeps every group with 1..7 of 8 right (the smallest non-zero score is 0.4375), exactly what
    # dapo keeps; κ = 0.6 also drops groups with 1 or 7 right (2..6 score ≥ 0.75).
    vcrl06) echo "--set algorithm.vcrlFilter.enabled=true --set algorithm.vcrlFilter.threshold=0.6" ;;
    *) echo "run.sh: unknown setting '$1'" >&2; return 1 ;;
  esac
}

source experiments/lib/run-one.sh

for seed in ${seeds//,/ }; do
  for setting in ${settings//,/ }; do
    echo "$setting-s$seed $runs_dir --seed $seed --workers 1 $(overrides "$setting")"
  done
done | xargs -P "$jobs" -L 1 bash -c 'run_one examples/ladder-train.yaml "$@"' _
