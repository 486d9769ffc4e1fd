#!/usr/bin/env bash
# Issue 16 item 5(b): a student trained on its own generated pool vs the fixed pool, on the
# edge-of-competence ladder (docs/ladder.md, docs/self-play.md).
#   1. ladder-writer-pretrain: the ladder's cold start plus the generator's format
#      (examples/ladder-writer-pretrain.yaml; run once, seed 1), so the student can write problems;
#   2. per seed, 300 steps of the ladder's GRPO recipe from its final checkpoint:
#        fixed-s<seed>             examples/ladder-train.yaml (the fixed pool of 400 problems)
#        selfplay-s<seed>          examples/ladder-selfplay.yaml with selfPlay.trainGenerator=false: the
#                                  same, plus the problems the student writes every 10 steps and admits at
#                                  its edge (pass rate in [0.2, 0.8] over 8 samples); only the pool differs
#        selfplay-trained-s<seed>  examples/ladder-selfplay.yaml as shipped: the generator is trained too
#                                  (hard-but-solvable reward); not in the default settings
#      Every run evaluates the held-out split (gold verifier) every 50 steps; self-play runs log
#      selfplay/* (proposed, admitted, rejections by reason, pool size, generator reward).
# Results: results/pretrain.json, results/train-<name>.json; analyze.ts makes results/tables.md.
#   experiments/self-play/run.sh [--seeds 1,2,3] [--settings fixed,selfplay] [--steps N]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=1,2,3
settings=fixed,selfplay
runs_dir=runs/self-play
here=experiments/self-play
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --settings) settings="$2"; shift 2 ;;
    --steps) extra+=(--steps "$2"); shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--seeds, --settings, --steps)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir" "$here/results"
source experiments/lib/step.sh
writer=runs/ladder-writer-pretrain
setting_args() {
  case "$1" in
    fixed) echo "examples/ladder-train.yaml" ;;
    selfplay) echo "examples/ladder-selfplay.yaml --set selfPlay.trainGenerator=false" ;;
    selfplay-trained) echo "examples/ladder-selfplay.yaml" ;;
    *) echo "run.sh: unknown setting '$1'" >&2; return 1 ;;
  esac
}

args=(--config examples/ladder-writer-pretrain.yaml --workers 1)
[[ -f "$writer/config.json" ]] && args=(--resume "$writer")
run_step "$here/results/pretrain.json" "runs/ladder-writer-pretrain.log" pretrain "${args[@]}"
init="$(latest_model "$writer")"
for seed in ${seeds//,/ }; do
  for setting in ${settings//,/ }; do
    name="$setting-s$seed"
    if [[ -f "$runs_dir/$name/config.json" ]]; then args=(--resume "$runs_dir/$name")
    else
      read -r config overrides <<< "$(setting_args "$setting")"
      # shellcheck disable=SC2206 # the overrides are words
      args=(-c "$config" --set "runsDir=$runs_dir" --set "init.checkpoint=$init" --name "$name" --seed "$seed"
        --workers 1 ${overrides:-} "${extra[@]}")
    fi
    run_step "$here/results/train-$name.json" "$runs_dir/$name.log" train "${args[@]}" --no-report
  done
done
source experiments/lib/save-raw.sh
save_raw "$runs_dir" "$here/raw" $(cd "$here/results" && ls -- train-*.json | sed -e 's/^train-//' -e 's/\.json$//')
echo "self-play experiment done $(date -u +%H:%M:%S)"
