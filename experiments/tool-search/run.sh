#!/usr/bin/env bash
# The search experiment (issue 30 item 8 (ii)); README.md says what and why. One seed per call, so that
# two seeds can run side by side (one core each):
#   experiments/tool-search/run.sh pretrain S   # the search-use cold start of seed S (~8 min on one core)
#   experiments/tool-search/run.sh rl S [ARMS]   # RL from that cold start: search (uniform over hops), nosearch, sec
#   experiments/tool-search/run.sh eval S [NAMES] # held-out evaluations of the cold start and the RL arms
# Raw results go to experiments/tool-search/raw/; runs to runs/.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/tool-search
R=$E/raw
cli() { node bin/curricula.mjs "$@"; }
what=${1:?pretrain, rl or eval}
s=${2:?a seed}
cold=runs/tool-search-pretrain-s$s/checkpoints/step-001500/model
case "$what" in
  pretrain)
    cli pretrain --config $E/pretrain.yaml --workers 1 --seed "$s" --name "tool-search-pretrain-s$s" --overwrite \
      --quiet --json > "$R/pretrain-s$s.json"
    ;;
  rl)
    # The no-search baseline: the same config without rollout.environment (single-turn, no search).
    node -e "
      const yaml = require('yaml'); const fs = require('fs');
      const config = yaml.parse(fs.readFileSync('$E/rl.yaml', 'utf8'));
      delete config.rollout.environment;
      fs.writeFileSync('$R/rl-nosearch.yaml', yaml.stringify(config));"
    # search: uniform over the hop levels (item (ii)); sec: the same with the SEC selector over them (iii).
    for arm in ${3:-search nosearch sec}; do
      config=$E/rl.yaml
      extra=()
      [ "$arm" = nosearch ] && config=$R/rl-nosearch.yaml
      [ "$arm" = sec ] && extra=(--set selector.name=sec)
      cli train --config "$config" --seed "$s" --name "tool-search-rl-$arm-s$s" --workers 1 --overwrite --quiet --json \
        --set "init.checkpoint=$cold" "${extra[@]}" > "$R/rl-$arm-s$s.json"
      cp "runs/tool-search-rl-$arm-s$s/metrics.jsonl" "$R/rl-$arm-s$s.metrics.jsonl"
    done
    ;;
  eval)
    for name in ${3:-cold search nosearch sec}; do
      model=$cold
      [ "$name" != cold ] && model=runs/tool-search-rl-$name-s$s/checkpoints/step-000100/model
      for env in search none; do
        flag=(--environment "$E/environment.yaml")
        [ "$env" = none ] && flag=(--tools none)
        cli eval --checkpoint "$model" --tasks search-facts:1-3 --samples 8 --problems 100 --temperature 1 --seed 11 \
          --workers 1 "${flag[@]}" --quiet --json > "$R/eval-$name-s$s-$env.json"
      done
    done
    ;;
  *) echo "unknown step '$what' (pretrain, rl or eval)" >&2; exit 2 ;;
esac
