#!/usr/bin/env bash
# Issue 29 benchmarks of 2026-12-04: the native engine on both cores (policy.threads) against the tfjs engine
# and the best PyTorch cell, side by side in each invocation, three rounds alternating the engines; then the
# native pass's own profile (--roofline) and the larger presets. Run on an otherwise idle machine.
# The files: {native,tfjs}-b{8,32}-r{1,2,3}.json and profile-b{8,32}.json at commit 3a58f5f (dense attention),
# large-b8, xl-b8 (PyTorch with 1 OpenBLAS thread) and xl-b8-blas2 (the 2-thread cells, the faster ones)
# at 67dd011, then blocked-b{8,32}-r{1,2,3}.json and blocked-profile-b{8,32}.json (--only blocked) at
# d3b7fd7 (causal attention in blocks).
#   bash experiments/bench-2026-12-04/run.sh [--rounds 3] [--only steps|profile|presets|blocked]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/bench-2026-12-04
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
if [[ -z "$only" || "$only" == steps ]]; then
  for round in $(seq 1 "$rounds"); do
    for batch in 8 32; do
      # native: 1 worker × 2 threads and 2 workers × 1 thread (auto = cores per worker); tfjs: 1 and 2 workers
      bench "native-b$batch-r$round.json" --configs base --workers 1,2 --engine native --train-batch "$batch" --repeats 5
      bench "tfjs-b$batch-r$round.json" --configs base --workers 1,2 --engine tfjs --train-batch "$batch" --repeats 5
    done
  done
fi
if [[ -z "$only" || "$only" == profile ]]; then
  for batch in 8 32; do
    bench "profile-b$batch.json" --configs base --workers 1 --engine native --train-batch "$batch" --repeats 5 --roofline
  done
fi
if [[ -z "$only" || "$only" == presets ]]; then
  # one size per invocation, so that each file's peak RSS is that size's
  bench "large-b8.json" --configs large --workers 1 --engine native --train-batch 8 --repeats 3 --warmup 1
  # xl: PyTorch swept over torch threads 1,2 with 1 OpenBLAS thread (the best cell of every earlier sweep)
  # and 16 sampled rows, to keep its sampling baseline within minutes
  bench "xl-b8.json" --configs xl --workers 1 --engine native --train-batch 8 --repeats 3 --warmup 1 \
    --blas-threads 1 --sample-batch 16
  bench "xl-b8-blas2.json" --configs xl --workers 1 --engine native --train-batch 8 --repeats 3 --warmup 1 \
    --blas-threads 2 --sample-batch 16
fi
if [[ "$only" == blocked ]]; then
  for round in $(seq 1 "$rounds"); do
    for batch in 8 32; do
      bench "blocked-b$batch-r$round.json" --configs base --workers 1,2 --engine native --train-batch "$batch" --repeats 5
    done
  done
  for batch in 8 32; do
    bench "blocked-profile-b$batch.json" --configs base --workers 1 --engine native --train-batch "$batch" --repeats 5 --roofline
  done
fi
