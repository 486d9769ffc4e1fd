#!/usr/bin/env bash
# Which PyTorch training step is fastest on this machine (issue 29 item 6)? Runs bench/torch_baseline.py's
# train mode for every variant (Adam's per-parameter loop or foreach path × attention scores as
# q·kᵀ/√hd + mask or one baddbmm) in every thread cell (torch threads × OPENBLAS_NUM_THREADS, both 1 and 2),
# alternating the variants in each of --rounds rounds, and prints one JSON line per measurement; the
# medians are taken by the reader (jq or the command in bench/README.md). Run it on an otherwise idle machine.
#   bench/torch_variants.sh [--rounds 3] [--batch 8] [model flags of torch_baseline.py ...]
set -euo pipefail
cd "$(dirname "$0")"
rounds=3
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done
python=${CURRICULA_PYTHON:-/usr/bin/python3}
for round in $(seq 1 "$rounds"); do
  for threads in 1 2; do
    for blas in 1 2; do
      for adam in loop foreach; do
        for attention in add baddbmm; do
          OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$blas "$python" torch_baseline.py --threads "$threads" \
            --adam "$adam" --attention "$attention" "${extra[@]}" |
            "$python" -c "import json,sys; r=json.loads(sys.stdin.read()); print(json.dumps({'round': $round, 'threads': $threads, 'blas': $blas, 'adam': r['adam'], 'attention': r['attention'], 'batch': r['batch'], 'tokensPerSecond': r['tokensPerSecond']}))"
        done
      done
    done
  done
done
