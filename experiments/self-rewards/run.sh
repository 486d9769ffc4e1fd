#!/usr/bin/env bash
# Issue 16 item 5(a): RL with each self-reward vs the gold verifier on the edge-of-competence ladder
# (docs/ladder.md): 300 steps of uniform GRPO on 1-8 digit addition from ladder-cold, 3 seeds, two runs at
# a time with one worker each. Settings (run name = <setting>-s<seed> under runs/self-rewards/):
#   verifier          examples/ladder-train.yaml (the gold reward, the reference curve)
#   majority-vote     the same with reward.name=majority-vote (TTRL, the existing label-free baseline)
#   self-confidence   examples/ladder-self-confidence.yaml with reward.options.eos=false (RLSC as first
#                     built: p(y|x) without EOS, so the empty completion scores 1; these runs found that)
#   self-confidence-eos  examples/ladder-self-confidence.yaml (RLSC with EOS in p(y|x), the default since)
#   self-consistency  examples/ladder-self-consistency.yaml (SCS)
#   self-reference    examples/ladder-self-reference.yaml   (CaT)
# Every run evaluates on the held-out split with the gold verifier (eval/pass@k every 50 steps) and logs
# reward/self_gold_agreement and reward/confident_wrong per step (the self-rewards; majority-vote logs
# reward/label_accuracy). A finished run (result.json) is skipped, an interrupted one resumed. Afterwards
# the cold start and every finished run are evaluated once more for calibration (results/eval-*.json),
# and the raw metrics copied to raw/ (experiments/lib/save-raw.sh).
#   experiments/self-rewards/run.sh [--seeds 1,2,3] [--settings verifier,...] [--jobs 2] [--steps N]
#                                   [--runs-dir DIR] [--smoke] [--eval-only]
# --eval-only: no training; only the calibration evaluations of finished runs and the raw copies.
# --smoke: a quick check of the script (5 steps, eval of 4 problems per level at step 5, runs-dir
# runs/self-rewards-smoke); not a result.
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=1,2,3
settings=verifier,majority-vote,self-confidence,self-confidence-eos,self-consistency,self-reference
jobs=2
runs_dir=runs/self-rewards
extra=()
eval_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --settings) settings="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --steps) extra+=(--steps "$2"); shift 2 ;;
    --runs-dir) runs_dir="$2"; shift 2 ;;
    --eval-only) eval_only=1; shift ;;
    --smoke)
      runs_dir=runs/self-rewards-smoke
      extra+=(--steps 5 --set eval.every=5 --set eval.problemsPerDifficulty=4 --set eval.samples=2)
      shift ;;
    *) echo "run.sh: unknown option '$1' (--seeds, --settings, --jobs, --steps, --runs-dir, --smoke, --eval-only)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir"

# The config and overrides of one setting, on one line.
setting_args() {
  case "$1" in
    verifier) echo "examples/ladder-train.yaml" ;;
    majority-vote) echo "examples/ladder-train.yaml --set reward.name=majority-vote" ;;
    self-confidence) echo "examples/ladder-self-confidence.yaml --set reward.options.eos=false" ;;
    self-confidence-eos) echo "examples/ladder-self-confidence.yaml" ;;
    self-consistency) echo "examples/ladder-self-consistency.yaml" ;;
    self-reference) echo "examples/ladder-self-reference.yaml" ;;
    *) echo "run.sh: unknown setting '$1'" >&2; return 1 ;;
  esac
}

source experiments/lib/run-one.sh

# run_one CONFIG NAME RUNS_DIR [train arguments...]: the config comes first on each line.
for seed in ${seeds//,/ }; do
  for setting in ${settings//,/ }; do
    [[ "$eval_only" == 1 ]] && continue
    read -r config overrides <<< "$(setting_args "$setting")"
    # No trailing blank: xargs -L joins a line that ends in one with the next.
    line="$config $setting-s$seed $runs_dir --seed $seed --workers 1 ${overrides:-} ${extra[*]:-}"
    echo "${line%"${line##*[! ]}"}"
  done
done | xargs -r -P "$jobs" -L 1 bash -c 'run_one "$@"' _

# Held-out calibration, after training (the runs' own evaluations predate eval/consistency/*): the cold
# start and each finished run's final checkpoint on the same held-out problems (eval seed 1, 100 per
# level, 4 samples at T = 1): pass@k, maj@k and agreement calibration → results/eval-<name>.json.
[[ "$runs_dir" == runs/self-rewards ]] || exit 0
here=experiments/self-rewards
mkdir -p "$here/results"
source experiments/lib/step.sh
source experiments/lib/save-raw.sh
evaluate() {
  run_step "$here/results/eval-$1.json" "$runs_dir/eval-$1.log" eval --checkpoint "$2" --tasks addition:1-8 \
    --problems 100 --samples 4 --temperature 1 --seed 1 --workers 1
}
evaluate cold examples/checkpoints/ladder-cold
finished=()
for seed in ${seeds//,/ }; do
  for setting in ${settings//,/ }; do
    [[ -f "$runs_dir/$setting-s$seed/result.json" ]] || continue
    evaluate "$setting-s$seed" "$(latest_model "$runs_dir/$setting-s$seed")"
    finished+=("$setting-s$seed")
  done
done
save_raw "$runs_dir" "$here/raw" "${finished[@]}"
