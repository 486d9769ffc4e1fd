#!/usr/bin/env bash
# Runs the selector experiment: every selector × seed in config.yaml's setting, two runs at a time.
#   experiments/selectors-embedded/run.sh [--selectors uniform,adarft,...] [--seeds 1,2,3] [--jobs 2]
#       [--runs-dir runs/selectors] [--tag budget --set rollout.budget.enabled=true ...]
# Runs go to runs/selectors/<selector>[-<tag>]-s<seed>/; --set overrides apply to every run of the call. A finished run (result.json present) is skipped and an
# interrupted one is resumed, so the script can be re-run after a crash or a stop. Then:
#   ./bin/curricula.mjs compare runs/selectors/*-s[0-9]*/   (writes runs/selectors/compare/compare.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
selectors=uniform,adarft,sec,bots,balanced,learning-progress
seeds=1,2,3
jobs=2
runs_dir=runs/selectors
tag=''
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --selectors) selectors="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --runs-dir) runs_dir="$2"; shift 2 ;;
    --tag) tag="-$2"; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--selectors, --seeds, --jobs, --runs-dir, --tag, --set)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir"

source experiments/lib/run-one.sh

for seed in ${seeds//,/ }; do
  for selector in ${selectors//,/ }; do
    echo "$selector $seed"
  done
# xargs appends "<selector> <seed>"; the run gets the shared --set pairs after its own overrides.
done | xargs -P "$jobs" -L 1 bash -c 'run_one experiments/selectors-embedded/config.yaml "${@: -2:1}$1-s${@: -1}" "$2" --set "selector.name=${@: -2:1}" --seed "${@: -1}" "${@:3:$(($# - 4))}"' _ "$tag" "$runs_dir" "${sets[@]}"
