#!/usr/bin/env bash
# The calculator experiment (issue 30 item 8 (i)); README.md says what and why. One seed per call, so that
# two seeds can run side by side (one core each):
#   experiments/tool-calculator/run.sh pretrain S   # the tool-use cold start of seed S (~10 min on one core)
#   experiments/tool-calculator/run.sh rl S         # RL with the calculator, then without it, from that cold start
#   experiments/tool-calculator/run.sh eval S       # held-out evaluations of the cold start and both RL arms
# Raw results go to experiments/tool-calculator/raw/; runs to runs/.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/tool-calculator
R=$E/raw
cli() { node bin/curricula.mjs "$@"; }
what=${1:?pretrain, rl or eval}
s=${2:?a seed}
cold=runs/tool-calc-pretrain-s$s/checkpoints/step-002000/model
case "$what" in
  pretrain)
    cli pretrain --config $E/pretrain.yaml --workers 1 --seed "$s" --name "tool-calc-pretrain-s$s" --quiet --json \
      > "$R/pretrain-s$s.json"
    ;;
  rl)
    # The comparison arm: the same config without rollout.environment (single-turn, no tool).
    node -e "
      const yaml = require('yaml'); const fs = require('fs');
      const config = yaml.parse(fs.readFileSync('$E/rl.yaml', 'utf8'));
      delete config.rollout.environment;
      fs.writeFileSync('$R/rl-notool.yaml', yaml.stringify(config));"
    for arm in tool notool; do
      config=$E/rl.yaml
      [ "$arm" = notool ] && config=$R/rl-notool.yaml
      cli train --config "$config" --seed "$s" --name "tool-calc-rl-$arm-s$s" --workers 1 --overwrite --quiet --json \
        --set "init.checkpoint=$cold" > "$R/rl-$arm-s$s.json"
      cp "runs/tool-calc-rl-$arm-s$s/metrics.jsonl" "$R/rl-$arm-s$s.metrics.jsonl"
    done
    ;;
  eval)
    for name in cold tool notool; do
      model=$cold
      [ "$name" != cold ] && model=runs/tool-calc-rl-$name-s$s/checkpoints/step-000150/model
      for tools in calc none; do
        cli eval --checkpoint "$model" --tasks addition:1-8 --samples 8 --problems 100 --temperature 1 --seed 11 \
          --workers 1 --tools "$tools" --quiet --json > "$R/eval-$name-s$s-tools-$tools.json"
      done
    done
    ;;
  *) echo "unknown step '$what' (pretrain, rl or eval)" >&2; exit 2 ;;
esac
