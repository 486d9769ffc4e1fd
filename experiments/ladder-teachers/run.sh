#!/usr/bin/env bash
# Issue 13 §3.2 on the edge-of-competence ladder (docs/ladder.md, docs/teachers.md): students prepared
# by (a) the raw worked solutions, (b) an untrained teacher's explanations, (c) an RLT-trained teacher's
# explanations, (d) on-policy distillation (OPD) from that same RLT teacher, and (none) no preparation;
# then the same RL stage for every student. Per seed:
#   1. teach-s<seed>: `curricula teach` (examples/ladder-teach.yaml: 125 steps on levels 1-4 — the ladder's
#      0% levels cannot hold question + explanation + solution in the model's 128-token context);
#   2. students: a/b/c with `curricula distill` (examples/ladder-distill.yaml, 200 steps × 32 on levels
#      1-4; b: teacher = the cold start itself; c: teacher = teach-s<seed>); d with `curricula train`
#      (opd.yaml: 50 steps of pure OPD from teach-s<seed>, the same 6,400 sequences);
#   3. rl-<student>-s<seed>: examples/ladder-train.yaml (uniform GRPO on levels 1-8) from the student,
#      --steps STEPS (default 100; held-out pass@1 per level at steps 0, 50 and the end).
# Results: results/*.json (the commands' --json output); analyze.ts makes results/tables.md.
# Finished steps are skipped; teach and train runs resume; distill has no resume (rerun from scratch).
#   experiments/ladder-teachers/run.sh [--seeds 1,2,3] [--students none,a,b,c,d] [--steps 100]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=1,2,3
students=none,a,b,c,d
steps=100
runs_dir=runs/ladder-teachers
here=experiments/ladder-teachers
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --students) students="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--seeds, --students, --steps)" >&2; exit 2 ;;
  esac
done
mkdir -p "$runs_dir" "$here/results"
cli=./bin/curricula.mjs
stamp() { date -u +%H:%M:%S; }
# The final checkpoint of a run (a run directory given as a checkpoint resolves to BEST, which for teach
# and OPD runs is chosen by the solver's held-out score, not by what the stage trains for).
latest() { echo "$runs_dir/$1/checkpoints/$(cat "$runs_dir/$1/checkpoints/LATEST")/model"; }

# run CMD NAME OUT [args...]: a curricula command whose --json result goes to OUT only when it ends well.
run() {
  local cmd="$1" name="$2" out="$3"; shift 3
  if [[ -f "$out" ]]; then echo "skip $name (done)"; return 0; fi
  local args=("$@")
  # teach and train resume an interrupted run; distill starts over.
  if [[ -f "$runs_dir/$name/config.json" ]]; then
    if [[ "$cmd" == distill ]]; then args+=(--overwrite); else args=(--resume "$runs_dir/$name"); fi
  fi
  echo "start $name $(stamp)"
  if "$cli" "$cmd" "${args[@]}" --quiet --json > "$out.tmp" 2> "$runs_dir/$name.log"; then
    mv "$out.tmp" "$out"; echo "done $name $(stamp)"
  else
    rm -f "$out.tmp"; echo "FAILED $name (see $runs_dir/$name.log)" >&2; return 1
  fi
}

for seed in ${seeds//,/ }; do
  common=(--seed "$seed" --workers 1 --set "runsDir=$runs_dir")
  run teach "teach-s$seed" "$here/results/teach-s$seed.json" \
    -c examples/ladder-teach.yaml --name "teach-s$seed" "${common[@]}"
  teacher="$(latest "teach-s$seed")"
  for student in ${students//,/ }; do
    name="student-$student-s$seed"
    case "$student" in
      none) init=examples/checkpoints/ladder-cold ;;
      a) run distill "$name" "$here/results/$name.json" -c examples/ladder-distill.yaml --name "$name" \
           --source solutions "${common[@]}"; init="$(latest "$name")" ;;
      b) run distill "$name" "$here/results/$name.json" -c examples/ladder-distill.yaml --name "$name" \
           --set teacher.checkpoint=examples/checkpoints/ladder-cold "${common[@]}"; init="$(latest "$name")" ;;
      c) run distill "$name" "$here/results/$name.json" -c examples/ladder-distill.yaml --name "$name" \
           --set "teacher.checkpoint=$teacher" "${common[@]}"; init="$(latest "$name")" ;;
      d) run train "$name" "$here/results/$name.json" -c "$here/opd.yaml" --name "$name" --no-report \
           --set "teacher.pool=[{name: rlt, checkpoint: $teacher}]" "${common[@]}"; init="$(latest "$name")" ;;
      *) echo "run.sh: unknown student '$student' (none, a, b, c, d)" >&2; exit 2 ;;
    esac
    run train "rl-$student-s$seed" "$here/results/rl-$student-s$seed.json" -c examples/ladder-train.yaml \
      --name "rl-$student-s$seed" --steps "$steps" --no-report --set "init.checkpoint=$init" "${common[@]}"
  done
done
echo "all done $(stamp)"
# Raw results to commit: every run whose command finished (its JSON is in results/).
source experiments/lib/save-raw.sh
save_raw "$runs_dir" "$here/raw" $(cd "$here/results" && ls -- *.json | sed 's/\.json$//')
