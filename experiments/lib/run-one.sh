# Sourced by the experiment scripts (experiments/*/run.sh): run_one trains one run of an experiment.
#   run_one CONFIG NAME RUNS_DIR [curricula train arguments...]
# A finished run (RUNS_DIR/NAME/result.json present) is skipped, an interrupted one (config.json but no
# result.json) resumed with its stored config, a new one started from CONFIG with the arguments. The train
# result goes to result.json only when the run ends well; its log to RUNS_DIR/NAME.log.
run_one() {
  local config="$1" name="$2" runs_dir="$3"
  shift 3
  local dir="$runs_dir/$name"
  if [[ -f "$dir/result.json" ]]; then echo "skip $name (finished)"; return 0; fi
  echo "start $name $(date -u +%H:%M:%S)"
  local args
  if [[ -f "$dir/config.json" ]]; then
    args=(--resume "$dir")
  else
    args=(-c "$config" --set "runsDir=$runs_dir" --name "$name" "$@")
  fi
  if ./bin/curricula.mjs train "${args[@]}" --no-report --quiet --json > "$dir.json.tmp" 2> "$runs_dir/$name.log"; then
    mv "$dir.json.tmp" "$dir/result.json"
    echo "done $name $(date -u +%H:%M:%S)"
  else
    rm -f "$dir.json.tmp"
    echo "FAILED $name (see $runs_dir/$name.log)" >&2
    return 1
  fi
}
export -f run_one
