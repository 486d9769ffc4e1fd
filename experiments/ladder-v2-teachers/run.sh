#!/usr/bin/env bash
# The teachers experiment (issue 28 claim iv); README.md says what and why. One seed S (2, 3, 4: the
# teacher's pretraining seed and the student's ladder-v2 cold start) per call; each step skips what is done:
#   experiments/ladder-v2-teachers/run.sh pretrain S   # the teacher cold start (stops at step 400)
#   experiments/ladder-v2-teachers/run.sh teach S      # RLT on that teacher, the ladder-v2 cold start as student
#   experiments/ladder-v2-teachers/run.sh distill S    # the four students (answers, solutions, cold teacher, RLT teacher)
#   experiments/ladder-v2-teachers/run.sh eval S       # the students and the untouched cold start at seed 11
#   experiments/ladder-v2-teachers/run.sh save S       # configs, results and metrics into raw/
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/ladder-v2-teachers
cli() { node bin/curricula.mjs "$@"; }
what=${1:?pretrain, teach, distill, eval or save}
s=${2:?a seed (2, 3, 4)}
teacher_cold=runs/teacher-cold-s$s/checkpoints/step-000400/model
student=examples/checkpoints/ladder-v2-cold-s$s
students=(answers solutions teacher-cold teacher-rlt)
case "$what" in
  pretrain)
    if [[ -d $teacher_cold ]]; then echo "skip pretrain s$s"; exit 0; fi
    if [[ -f runs/teacher-cold-s$s/config.json ]]; then args=(--resume "runs/teacher-cold-s$s")
    else args=(--config $E/teacher-pretrain.yaml --seed "$s" --name "teacher-cold-s$s"); fi
    cli pretrain "${args[@]}" --workers 1 --quiet --json > /dev/null &
    pid=$!
    while kill -0 "$pid" 2> /dev/null && [[ ! -d $teacher_cold ]]; do sleep 5; done
    kill "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
    [[ -d $teacher_cold ]] || { echo "pretrain s$s ended without $teacher_cold" >&2; exit 1; }
    ;;
  teach)
    [[ -f runs/teach-s$s/result.json ]] && { echo "skip teach s$s"; exit 0; }
    if [[ -f runs/teach-s$s/config.json ]]; then args=(--resume "runs/teach-s$s")
    else args=(--config $E/teach.yaml --seed "$s" --name "teach-s$s" --set "init.checkpoint=$teacher_cold" \
      --set "student.checkpoint=$student"); fi
    cli teach "${args[@]}" --workers 1 --quiet --json > "runs/teach-s$s.json.tmp"
    mv "runs/teach-s$s.json.tmp" "runs/teach-s$s/result.json"
    ;;
  distill)
    for source in "${students[@]}"; do
      name=student-$source-s$s
      [[ -f runs/$name/result.json ]] && { echo "skip $name"; continue; }
      case "$source" in
        answers|solutions) args=(--source "$source") ;;
        teacher-cold) args=(--set "teacher.checkpoint=$teacher_cold") ;;
        teacher-rlt) args=(--set "teacher.checkpoint=runs/teach-s$s/checkpoints/step-000125/model") ;;
      esac
      cli distill --config $E/distill.yaml --seed "$s" --name "$name" --overwrite --workers 1 --quiet --json \
        --set "student.checkpoint=$student" "${args[@]}" > "runs/$name.json.tmp"
      mv "runs/$name.json.tmp" "runs/$name/result.json"
    done
    ;;
  eval)
    mkdir -p $E/results
    for model in cold "${students[@]}"; do
      out=$E/results/eval-$model-s$s-seed11.json
      [[ -f $out ]] && continue
      checkpoint=$student
      [[ $model == cold ]] || checkpoint=runs/student-$model-s$s
      cli eval --checkpoint "$checkpoint" --tasks aligned-addition:1-10 --partition canonical --samples 4 \
        --problems 100 --temperature 1 --seed 11 --workers 1 --json --quiet > "$out.tmp"
      mv "$out.tmp" "$out"
    done
    ;;
  save)
    for run in teach-s$s "${students[@]/#/student-}"; do
      dir=runs/$run; [[ $run == teach-s$s ]] || dir=runs/$run-s$s
      [[ -f $dir/result.json ]] || continue
      mkdir -p "$E/raw/$(basename "$dir")"
      cp "$dir/config.json" "$dir/result.json" "$E/raw/$(basename "$dir")/"
      [[ -f $dir/metrics.jsonl ]] && gzip -9 -n -c "$dir/metrics.jsonl" > "$E/raw/$(basename "$dir")/metrics.jsonl.gz"
      [[ -f $dir/explanations.jsonl ]] && gzip -9 -n -c "$dir/explanations.jsonl" > "$E/raw/$(basename "$dir")/explanations.jsonl.gz"
    done
    cp "runs/teacher-cold-s$s/config.json" "$E/raw/teacher-pretrain-s$s.config.json"
    ;;
  *) echo "unknown step '$what' (pretrain, teach, distill, eval or save)" >&2; exit 2 ;;
esac
