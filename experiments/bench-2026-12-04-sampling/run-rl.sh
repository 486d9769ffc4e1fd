#!/usr/bin/env bash
# Issue 29 item 4 after native sampling: the whole RL step (`bench train --preset base --steps 6`) with 1
# and 2 workers, the two-core ceiling measured in the same run, on each engine:
#   rl-tfjs-rN.json         policy.engine tfjs
#   rl-native-t1-rN.json    native, 1 thread per worker (2 workers against 1 worker on one core)
#   rl-native-auto-rN.json  native, threads auto (1 worker on 2 threads against 2 workers on 1 each)
# N = 1..rounds (default 3); the engines alternate within a round.
#   bash experiments/bench-2026-12-04-sampling/run-rl.sh [--rounds 3]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/bench-2026-12-04-sampling
rounds=3
if [[ "${1:-}" == --rounds ]]; then rounds="$2"; fi
train() { # train OUT [bench train arguments...]: skipped when OUT exists
  local file="$out/$1"; shift
  [[ -f "$file" ]] && { echo "skip $file"; return 0; }
  echo "$(date -u +%H:%M:%S) $file"
  ./bin/curricula.mjs bench train --preset base --steps 6 --workers 1,2 "$@" --json > "$file.tmp" 2> "$file.log" &&
    mv "$file.tmp" "$file"
}
for round in $(seq 1 "$rounds"); do
  train "rl-native-t1-r$round.json" --engine native --engine-threads 1
  train "rl-tfjs-r$round.json" --engine tfjs
  train "rl-native-auto-r$round.json" --engine native
done
