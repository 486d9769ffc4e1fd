#!/usr/bin/env bash
# Issue 29 item 2, 2026-12-04 (second session): sampling on the native engine (native/model-decode.c,
# policy.engine native) against the tfjs sampler and the best PyTorch cell, side by side in each
# invocation, at batch 64 (8 prompts × 8 rows) for every preset. Run on an otherwise idle machine.
#   base-{native,tfjs}-r{1,2,3}.json: base, 1 and 2 workers, the two engines alternating, 3 rounds
#   large-native.json, xl-native.json: one size per invocation (so that peak RSS is that size's)
#   bash experiments/bench-2026-12-04-sampling/run.sh [--rounds 3] [--only base|presets]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/bench-2026-12-04-sampling
rounds=3
only=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (--rounds, --only)" >&2; exit 2 ;;
  esac
done
bench() { # bench OUT [bench policy arguments...]: skipped when OUT exists
  local file="$out/$1"; shift
  [[ -f "$file" ]] && { echo "skip $file"; return 0; }
  echo "$(date -u +%H:%M:%S) $file"
  ./bin/curricula.mjs bench policy "$@" --json > "$file.tmp" 2> "$file.log" && mv "$file.tmp" "$file"
}
if [[ -z "$only" || "$only" == base ]]; then
  for round in $(seq 1 "$rounds"); do
    for engine in native tfjs; do
      bench "base-$engine-r$round.json" --configs base --workers 1,2 --engine "$engine" --train-batch 8 --repeats 5
    done
  done
fi
if [[ -z "$only" || "$only" == presets ]]; then
  bench "large-native.json" --configs large --workers 1,2 --engine native --train-batch 8 --repeats 3 --warmup 1
  # xl: PyTorch with 2 OpenBLAS threads (the faster cells at xl in bench-2026-12-04), torch threads 1 and 2
  bench "xl-native.json" --configs xl --workers 1,2 --engine native --train-batch 8 --repeats 3 --warmup 1 \
    --blas-threads 2
fi
