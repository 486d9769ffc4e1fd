#!/usr/bin/env bash
# Tango on the ladder (README.md): the tango arm per seed; the paired baseline is
# experiments/rm-overoptimization's truth arm (the same rl.yaml settings without the tango block).
#   experiments/tango-ladder/run.sh ["SEEDS"]   # default "1 2 3", two seeds at a time
#   node --import tsx experiments/tango-ladder/analyze.ts > experiments/tango-ladder/results/tables.md
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/tango-ladder
mkdir -p $E/raw
one() {
  node bin/curricula.mjs train --config $E/rl.yaml --seed "$1" --name "tango-ladder-s$1" --overwrite --quiet --json \
    > "$E/raw/rl-tango-s$1.json"
  gzip -9 < "$E/runs/tango-ladder-s$1/metrics.jsonl" > "$E/raw/rl-tango-s$1.metrics.jsonl.gz"
}
running=0
for s in ${1:-1 2 3}; do
  one "$s" &
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then wait -n; running=$((running - 1)); fi
done
wait
