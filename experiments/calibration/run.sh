#!/usr/bin/env bash
# The calibration experiment (issue 28 claim vi); README.md says what and why. Steps, each resumable:
#   experiments/calibration/run.sh pretrain S   # cold start of pretraining seed S (S = 2, 3, 4), to its step
#   experiments/calibration/run.sh rl           # verifier and calibration rewards × the 3 cold starts, then lr 0
#   experiments/calibration/run.sh save         # the finished runs' configs and metrics into raw/
#   experiments/calibration/run.sh eval         # re-measure cold starts and final models at seed 11, per level
# pretrain runs pilot j's 900-step schedule and stops once the checkpoint run.sh uses is written (the
# ladder-v2 rule's step for the seed: 400, 400, 450); a pretraining run is deterministic, so the full run
# would have the same checkpoint there. Runs go to runs/ (local); raw/ keeps what the analysis reads.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/calibration
cold_step() { case "$1" in 2|3) echo 400 ;; 4) echo 450 ;; *) echo "seed $1: no cold-start step (2, 3, 4)" >&2; exit 2 ;; esac; }
cold_dir() { printf 'runs/calibration-cold-s%s/checkpoints/step-%06d/model' "$1" "$(cold_step "$1")"; }
what=${1:?pretrain, rl, save or eval}
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
  eval)
    # the cold starts and both arms' step-200 models re-measured at another seed (11), per level with each
    # level's calibration (within-level AUROC: does the confidence know more than the difficulty?)
    evals=()
    for s in 2 3 4; do
      evals+=("cold-c$s $(cold_dir "$s")")
      for arm in verifier calibration; do
        run=$(printf '%s-runs-calibration-cold-s%s-checkpoints-step-%06d-model-s1' "$arm" "$s" "$(cold_step "$s")")
        evals+=("$arm-c$s runs/calibration/$arm/$run/checkpoints/step-000200/model")
      done
    done
    mkdir -p $E/results
    printf '%s\n' "${evals[@]}" | xargs -P "${CONCURRENCY:-2}" -L 1 bash -c '
      out=experiments/calibration/results/eval-$0-seed11.json
      [[ -f $out ]] && exit 0
      node bin/curricula.mjs eval --checkpoint "$1" --tasks aligned-addition-confidence:1-9 --partition canonical \
        --samples 4 --problems 100 --temperature 1 --seed 11 --workers 1 --json --quiet > "$out.tmp" && mv "$out.tmp" "$out"'
    ;;
  save)
    # each finished run's config, result and gzipped metrics into raw/<arm>-c<cold start>/
    for arm in verifier calibration lr0; do
      for s in 2 3 4; do
        run=$(printf '%s-runs-calibration-cold-s%s-checkpoints-step-%06d-model-s1' "$arm" "$s" "$(cold_step "$s")")
        dir=runs/calibration/$arm/$run
        [[ -f $dir/metrics.jsonl ]] || { echo "no run $dir (not run yet?)" >&2; continue; }
        mkdir -p "$E/raw/$arm-c$s"
        cp "$dir/config.json" "$E/raw/$arm-c$s/config.json"
        gzip -9 -n -c "$dir/metrics.jsonl" > "$E/raw/$arm-c$s/metrics.jsonl.gz"
      done
    done
    for s in 2 3 4; do cp "runs/calibration-cold-s$s/config.json" "$E/raw/pretrain-s$s.config.json"; done
    ;;
  *) echo "unknown step '$what' (pretrain, rl, save or eval)" >&2; exit 2 ;;
esac
