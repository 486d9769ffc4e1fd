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

run_one() {
  local selector="$1" seed="$2" runs_dir="$3" tag="$4"
  shift 4
  local name="${selector}${tag}-s${seed}"
  local dir="$runs_dir/$name"
  if [[ -f "$dir/result.json" ]]; then echo "skip $name (finished)"; return 0; fi
  echo "start $name"
  local args
  if [[ -f "$dir/config.json" ]]; then
    args=(--resume "$dir")
  else
    args=(-c experiments/selectors-embedded/config.yaml --set "selector.name=$selector" --seed "$seed"
      --set "runsDir=$runs_dir" --name "$name" "$@")
  fi
  if ./bin/curricula.mjs train "${args[@]}" --no-report --quiet --json > "$dir.json.tmp" 2> "$runs_dir/$name.log"; then
    mv "$dir.json.tmp" "$dir/result.json"
    echo "done $name"
  else
    rm -f "$dir.json.tmp"
    echo "FAILED $name (see $runs_dir/$name.log)" >&2
    return 1
  fi
}
export -f run_one

for seed in ${seeds//,/ }; do
  for selector in ${selectors//,/ }; do
    echo "$selector $seed"
  done
# xargs appends "<selector> <seed>" after the fixed arguments (runs dir, tag, --set pairs).
done | xargs -P "$jobs" -L 1 bash -c 'run_one "${@: -2:1}" "${@: -1}" "${@:1:$(($# - 2))}"' _ "$runs_dir" "$tag" "${sets[@]}"
