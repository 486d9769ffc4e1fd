#!/usr/bin/env bash
# Issue 16 item 3 (digest ¶25, "The Hallucination Tax of Reinforcement Finetuning", arXiv 2505.13988):
# refusal and accuracy on addition before and after RL, with and without unanswerable problems in RL.
# (Countdown first: its cold start, examples/countdown-refusal-pretrain.yaml, solved 0% of 3-4 number
# countdown after 1,200 supervised steps, so RL there has no signal; see README.md.)
#   1. addition-refusal-pretrain: the cold start (examples/addition-refusal-pretrain.yaml: the ladder's
#      1-6 digit addition with 10% addition-unanswerable, a digit hidden, whose solution is the refusal),
#      run once (seed 1);
#   2. per seed, from that cold start, 300 GRPO steps (in-run eval every 100 steps, 50 problems per level) of
#        refusal-aware-s<seed>   examples/addition-refusal-train.yaml (90/10 mix, reward refusal-aware)
#        solvable-only-s<seed>   solvable-only.yaml (answerable addition only, reward verifier: standard RFT)
#   3. every model (the cold start, and each run's final checkpoint) evaluated the same way: held-out
#      addition and addition-unanswerable, 1-6 digits, 50 problems per task and level, 4 samples at
#      T = 1, eval seed 1 (the same problems for every model) → results/eval-<name>.json, whose metrics
#      include refusal/unanswerable_rate, refusal/false_rate and refusal/answerable_accuracy.
# The commands' --json output: results/pretrain.json, results/train-<name>.json, results/eval-<name>.json;
# analyze.ts makes results/tables.md. Finished steps are skipped, an interrupted train run resumed.
#   experiments/refusal/run.sh [--seeds 1,2,3] [--settings refusal-aware,solvable-only]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=1,2,3
settings=refusal-aware,solvable-only
runs_dir=runs/refusal
here=experiments/refusal
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --settings) settings="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--seeds, --settings)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir" "$here/results"
source experiments/lib/step.sh
cold=runs/addition-refusal-pretrain
evaluate() {
  run_step "$here/results/eval-$1.json" "$runs_dir/eval-$1.log" eval --checkpoint "$2" \
    --tasks addition:1-6,addition-unanswerable:1-6 --problems 50 --samples 4 --temperature 1 --seed 1 \
    --workers 1
}
config_of() {
  case "$1" in
    refusal-aware) echo examples/addition-refusal-train.yaml ;;
    solvable-only) echo "$here/solvable-only.yaml" ;;
    *) echo "run.sh: unknown setting '$1'" >&2; return 1 ;;
  esac
}

args=(--config examples/addition-refusal-pretrain.yaml --workers 1)
[[ -f "$cold/config.json" ]] && args=(--resume "$cold")
run_step "$here/results/pretrain.json" "runs/addition-refusal-pretrain.log" pretrain "${args[@]}"
evaluate cold "$(latest_model "$cold")"
for seed in ${seeds//,/ }; do
  for setting in ${settings//,/ }; do
    name="$setting-s$seed"
    if [[ -f "$runs_dir/$name/config.json" ]]; then args=(--resume "$runs_dir/$name")
    else args=(-c "$(config_of "$setting")" --set "runsDir=$runs_dir" --name "$name" --seed "$seed" --workers 1
      --set eval.every=100 --set eval.problemsPerDifficulty=50); fi
    run_step "$here/results/train-$name.json" "$runs_dir/$name.log" train "${args[@]}" --no-report
    evaluate "$name" "$(latest_model "$runs_dir/$name")"
  done
done
source experiments/lib/save-raw.sh
save_raw "$runs_dir" "$here/raw" $(cd "$here/results" && ls -- train-*.json | sed -e 's/^train-//' -e 's/\.json$//')
echo "refusal experiment done $(date -u +%H:%M:%S)"
