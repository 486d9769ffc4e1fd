#!/usr/bin/env bash
# The calibration experiment (issue 28 claim vi); README.md says what and why. Steps, each resumable:
#   experiments/calibration/run.sh pretrain S   # cold start of pretraining seed S (S = 2, 3, 4), to its step
#   experiments/calibration/run.sh rl           # verifier and calibration rewards × the 3 cold starts, then lr 0
# pretrain runs pilot j's 900-step schedule and stops once the checkpoint run.sh uses is written (the
# ladder-v2 rule's step for the seed: 400, 400, 450); a pretraining run is deterministic, so the full run
# would have the same checkpoint there. Runs go to runs/ (local); raw/ keeps what the analysis reads.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/calibration
cold_step() { case "$1" in 2|3) echo 400 ;; 4) echo 450 ;; *) echo "seed $1: no cold-start step (2, 3, 4)" >&2; exit 2 ;; esac; }
cold_dir() { printf 'runs/calibration-cold-s%s/checkpoints/step-%06d/model' "$1" "$(cold_step "$1")"; }
what=${1:?pretrain or rl}
case "$what" in
  pretrain)
    s=${2:?a pretraining seed}
    target=$(cold_dir "$s")
    if [[ -d "$target" ]]; then echo "skip pretrain s$s (has $target)"; exit 0; fi
    if [[ -f runs/calibration-cold-s$s/config.json ]]; then args=(--resume "runs/calibration-cold-s$s")
    else args=(--config $E/pretrain.yaml --seed "$s" --name "calibration-cold-s$s"); fi
    node bin/curricula.mjs pretrain "${args[@]}" --workers 1 --quiet --json > /dev/null &
    pid=$!
    while kill -0 "$pid" 2> /dev/null && [[ ! -d "$target" ]]; do sleep 5; done
    kill "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
    [[ -d "$target" ]] || { echo "pretrain s$s ended without $target" >&2; exit 1; }
    echo "cold start s$s: $target"
    ;;
  rl)
    colds=$(cold_dir 2),$(cold_dir 3),$(cold_dir 4)
    # the two reward arms side by side (each its own sweep directory), one run each at a time
    ./bin/curricula.mjs sweep --config $E/rl.yaml --grid "init.checkpoint=$colds" --seeds 1 \
      --out runs/calibration/verifier --concurrency 1 --prefix verifier &
    verifier=$!
    ./bin/curricula.mjs sweep --config $E/rl.yaml --grid "init.checkpoint=$colds" --set reward.name=calibration \
      --set reward.options.format=answer-line --seeds 1 --out runs/calibration/calibration --concurrency 1 \
      --prefix calibration &
    calibration=$!
    wait "$verifier"
    wait "$calibration"
    ./bin/curricula.mjs sweep --config $E/rl.yaml --grid "init.checkpoint=$colds" --set train.learningRate=0 \
      --set train.steps=50 --seeds 1 --out runs/calibration/lr0 --concurrency "${CONCURRENCY:-2}" --prefix lr0
    ;;
  *) echo "unknown step '$what' (pretrain or rl)" >&2; exit 2 ;;
esac
