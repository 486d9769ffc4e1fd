#!/usr/bin/env bash
# The compositions experiment (issue 28 claim (vii)); README.md says what and why. One seed per call:
#   experiments/string-compositions/run.sh pretrain S   # the cold start of seed S (~10 min on one core)
#   experiments/string-compositions/run.sh rl S         # GRPO on trained compositions from that cold start
#   experiments/string-compositions/run.sh eval S       # the cold start and the RL model on both sets
# The evaluation sets (raw/unseen.jsonl, raw/seen.jsonl) come from problem-sets.mts. Runs go to runs/.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/string-compositions
R=$E/raw
cli() { node bin/curricula.mjs "$@"; }
what=${1:?pretrain, rl or eval}
s=${2:?a seed}
cold=runs/compositions-pretrain-s$s/checkpoints/step-002000/model
case "$what" in
  pretrain)
    cli pretrain --config $E/pretrain.yaml --workers 1 --seed "$s" --name "compositions-pretrain-s$s" --overwrite \
      --quiet --json > "$R/pretrain-s$s.json"
    ;;
  rl)
    cli train --config $E/rl.yaml --seed "$s" --name "compositions-rl-s$s" --workers 1 --overwrite --quiet --json \
      --set "init.checkpoint=$cold" > "$R/rl-s$s.json"
    cp "runs/compositions-rl-s$s/metrics.jsonl" "$R/rl-s$s.metrics.jsonl"
    ;;
  eval)
    for name in cold rl; do
      model=$cold
      [ "$name" = rl ] && model=runs/compositions-rl-s$s/checkpoints/step-000150/model
      for set in unseen seen; do
        cli eval --checkpoint "$model" --problem-set "$R/$set.jsonl" --samples 8 --temperature 1 --seed 11 \
          --workers 1 --quiet --json > "$R/eval-$name-s$s-$set.json"
      done
    done
    ;;
  *) echo "unknown step '$what' (pretrain, rl or eval)" >&2; exit 2 ;;
esac
