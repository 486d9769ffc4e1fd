#!/usr/bin/env bash
# Issue 31 item 8 (ii): reward-model over-optimisation on the ladder (README.md).
#   experiments/rm-overoptimization/run.sh pairs      # raw/pairs.jsonl from the cold start's samples (pairs.ts)
#   experiments/rm-overoptimization/run.sh rm         # the two reward models (rm-full.yaml, rm-150.yaml)
#   experiments/rm-overoptimization/run.sh rl ["SEEDS"] # arms rm-full, rm-150, rm-full-kl, control, truth per seed
#   node --import tsx experiments/rm-overoptimization/rm-accuracy.ts   # results/rm-accuracy.json
#   node --import tsx experiments/rm-overoptimization/save-samples.ts  # raw/samples.json
#   node --import tsx experiments/rm-overoptimization/analyze.ts > experiments/rm-overoptimization/results/tables.md
# Arms: rm-full / rm-150: the reward model of 1,314 / 137 pairs; rm-full-kl: rm-full with a KL reward penalty
# (β 0.05, k1, the RLHF form); control: rm-full at learning rate 0; truth: the task verifier as the reward.
# Runs go to experiments/rm-overoptimization/runs/ (not in git); metrics are copied to raw/ (gzipped).
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/rm-overoptimization
R=$E/raw
mkdir -p $R
cli() { node bin/curricula.mjs "$@"; }
case "${1:?pairs, rm or rl}" in
  pairs)
    node --import tsx $E/pairs.ts 2400 101 > $R/pairs.jsonl
    head -150 $R/pairs.jsonl > $R/pairs-150.jsonl
    ;;
  rm)
    for n in full 150; do cli train-rm --config $E/rm-$n.yaml --quiet --json > $R/rm-$n.json; done
    ;;
  rl)
    for s in ${2:-1 2 3}; do
      for arm in rm-full rm-150 control truth rm-full-kl; do
        extra=()
        [ "$arm" = rm-150 ] && extra=(--set reward.options.checkpoint=$E/runs/rm-overopt-rm-150/model)
        [ "$arm" = control ] && extra=(--set train.learningRate=0)
        [ "$arm" = truth ] && extra=(--set reward.name=verifier --set 'reward.options={}')
        [ "$arm" = rm-full-kl ] && extra=(--set algorithm.kl.coefficient=0.05 --set algorithm.kl.mode=reward --set algorithm.kl.estimator=k1)
        cli train --config $E/rl.yaml --seed "$s" --name "rm-overopt-$arm-s$s" --overwrite --quiet --json "${extra[@]}" \
          > "$R/rl-$arm-s$s.json"
        gzip -9 < "$E/runs/rm-overopt-$arm-s$s/metrics.jsonl" > "$R/rl-$arm-s$s.metrics.jsonl.gz"
      done
    done
    ;;
  *) echo "unknown step (pairs, rm or rl)" >&2; exit 2 ;;
esac
