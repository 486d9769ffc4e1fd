# Sourced by experiment scripts: one curricula command per result file, skipped when the file exists.
#   run_step OUT LOG CMD [args...]  runs ./bin/curricula.mjs CMD args --quiet --json; its JSON goes to OUT
#                                   only when it ends well (OUT.tmp meanwhile), its stderr to LOG.
#   latest_model RUN_DIR            the run's final checkpoint's model directory (a run directory given as
#                                   a checkpoint resolves to its BEST checkpoint instead).
run_step() {
  local out="$1" log="$2"; shift 2
  if [[ -f "$out" ]]; then echo "skip $out (done)"; return 0; fi
  echo "start $out $(date -u +%H:%M:%S)"
  if ./bin/curricula.mjs "$@" --quiet --json > "$out.tmp" 2> "$log"; then
    mv "$out.tmp" "$out"; echo "done $out $(date -u +%H:%M:%S)"
  else
    rm -f "$out.tmp"; echo "FAILED $out (see $log)" >&2; return 1
  fi
}
latest_model() { echo "$1/checkpoints/$(cat "$1/checkpoints/LATEST")/model"; }
