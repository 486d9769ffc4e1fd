#!/usr/bin/env bash
# Objectives on the new ladder (issue 32 item 4): each estimator × loss arm trains 200 steps of rl.yaml from each
# ladder-v2 cold start (one RL seed, paired by cold start), then its final checkpoint is evaluated at pass@k for
# k up to 64 (40 held-out problems per level of aligned-addition 1-10, canonical split, problem and sampling
# seed 11, 64 samples at T = 1: the protocol of ../ladder-v2-passk), and the cold starts too.
# --minibatches M splits each step's batch into M optimiser steps (algorithm.minibatches): with M = 1 every
# update is on-policy (ratio 1), where the ratio losses coincide; M = 4 makes minibatches 2-4 off-policy.
# Runs are named <arm>-mb<M>-<cold>. Finished steps are skipped, interrupted runs resumed.
#   experiments/ladder-v2-objectives/run.sh [--colds s2,s3,s4] [--arms a,b] [--minibatches 4] [--jobs 1] [--threads 1]
set -euo pipefail
cd "$(dirname "$0")/../.."
here=experiments/ladder-v2-objectives
runs_dir=runs/ladder-v2-objectives
colds=s2,s3,s4
arms=grpo-ppo,grpo-gspo,grpo-gmpo,grpo-sapo,grpo-clipcov,grpo-klcov,grpo-entropy,gae-ppo,passk-ppo,grpo-nft
jobs=1
threads=1
minibatches=4
while [[ $# -gt 0 ]]; do
  case "$1" in
    --colds) colds="$2"; shift 2 ;;
    --arms) arms="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --minibatches) minibatches="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--colds, --arms, --minibatches, --jobs, --threads)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir" "$here/results"
source experiments/lib/run-one.sh

# The --set arguments of each arm (estimator × loss); every other setting is rl.yaml's.
arm_sets() {
  case "$1" in
    grpo-ppo) echo "" ;;
    grpo-gspo) echo "algorithm.loss.name=gspo" ;;
    grpo-gmpo) echo "algorithm.loss.name=gmpo" ;;
    grpo-sapo) echo "algorithm.loss.name=sapo" ;;
    grpo-clipcov) echo "algorithm.loss.name=clip-cov" ;;
    grpo-klcov) echo "algorithm.loss.name=kl-cov" ;;
    rloo-ppo) echo "algorithm.advantage.name=rloo" ;;
    opo-ppo) echo "algorithm.advantage.name=opo" ;;
    passk-ppo) echo "algorithm.advantage.name=grpo-passk" ;;
    drgrpo-norm) echo "algorithm.advantage.name=dr-grpo algorithm.loss.options.aggregation=seq-mean-token-sum-norm algorithm.loss.options.tokenSumNormaliser=104" ;;
    grpo-entropy) echo "algorithm.entropy.coefficient=0.01 algorithm.entropy.estimator=exact" ;;
    gae-ppo) echo "algorithm.advantage.name=gae algorithm.critic.learningRate=0.001" ;;
    remax-ppo) echo "algorithm.advantage.name=remax" ;;
    grpo-remix) echo "algorithm.remix.history=1" ;;
    grpo-nft) echo "algorithm.loss.name=nft algorithm.loss.options.tokenSumNormaliser=104" ;;
    *) echo "run.sh: unknown arm '$1'" >&2; return 2 ;;
  esac
}
export -f arm_sets

evaluate() { # evaluate OUT CHECKPOINT
  [[ -f "$1" ]] && { echo "skip $1"; return 0; }
  echo "$(date -u +%H:%M:%S) eval $1"
  ./bin/curricula.mjs eval --checkpoint "$2" --tasks aligned-addition:1-10 --partition canonical --problems 40 \
    --samples 64 --temperature 1 --seed 11 --workers 1 --quiet --json > "$1.tmp" && mv "$1.tmp" "$1"
}
export -f evaluate

one() {
  local arm="$1" cold="$2" runs_dir="$3" here="$4" threads="$5" minibatches="$6" name="$1-mb$6-$2"
  local sets=(--set "init.checkpoint=examples/checkpoints/ladder-v2-cold-$cold" --set "policy.threads=$threads"
    --set "algorithm.minibatches=$minibatches")
  for set in $(arm_sets "$arm"); do sets+=(--set "$set"); done
  run_one "$here/rl.yaml" "$name" "$runs_dir" "${sets[@]}" --workers 1 || return 1
  local dir="$runs_dir/$name"
  evaluate "$here/results/$name.passk.json" "$dir/checkpoints/$(cat "$dir/checkpoints/LATEST")/model"
}
export -f one
for cold in ${colds//,/ }; do evaluate "$here/results/cold-$cold.passk.json" "examples/checkpoints/ladder-v2-cold-$cold"; done
for cold in ${colds//,/ }; do
  for arm in ${arms//,/ }; do echo "$arm $cold $runs_dir $here $threads $minibatches"; done
done | xargs -P "$jobs" -L 1 bash -c 'one "$@"' _
