#!/usr/bin/env bash
# Issue 31 item 8 (i): RL on the constraints task graded by the embedded judge vs by the code-checked truth.
#   experiments/judge-rl/run.sh pretrain        # the policy's cold start (pretrain.yaml)
#   experiments/judge-rl/run.sh rl [SEEDS]      # arms truth, judge and the lr-0 control per seed (default 1 2 3)
#   python3 experiments/judge-rl/analyze.py     # results/summary.md from raw/
# The judge is served by `curricula serve --openai` on a free loopback port for the rl step and stopped
# after. Raw metrics and samples go to raw/; runs to experiments/judge-rl/runs/ (not in git).
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/judge-rl
R=$E/raw
mkdir -p $R
cli() { node bin/curricula.mjs "$@"; }
case "${1:?pretrain or rl}" in
  pretrain)
    cli pretrain --config $E/pretrain.yaml --quiet --json > $R/pretrain.json
    ;;
  rl)
    port=18731
    cli serve --openai --checkpoint examples/checkpoints/constraints-judge --port $port > /tmp/judge-rl-serve.log 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 100); do grep -q "listening on" /tmp/judge-rl-serve.log && break; sleep 0.2; done
    judge="{\"endpoint\":\"http://127.0.0.1:$port\",\"api\":\"completions\",\"verdict\":{\"type\":\"pass-fail\"},\"template\":\"{{prompt}}>{{extracted}}\\n\",\"maxTokens\":96,\"onFailure\":\"exclude\",\"concurrency\":16}"
    for s in ${2:-1 2 3}; do
      for arm in truth judge control; do
        extra=()
        [ "$arm" = judge ] && extra=(--set reward.name=judge-score --set "reward.options=$judge")
        [ "$arm" = control ] && extra=(--set train.learningRate=0)
        cli train --config $E/rl.yaml --seed "$s" --name "judge-rl-$arm-s$s" --overwrite --quiet --json "${extra[@]}" \
          > "$R/rl-$arm-s$s.json"
        cp "$E/runs/judge-rl-$arm-s$s/metrics.jsonl" "$R/rl-$arm-s$s.metrics.jsonl"
        node -e "
          const Database = require('better-sqlite3');
          const db = new Database(process.argv[1], { readonly: true });
          const rows = db.prepare('SELECT step, prompt, completion, reward, reason FROM samples ORDER BY rowid').all();
          require('fs').writeFileSync(process.argv[2], JSON.stringify(rows));" \
          "$E/runs/judge-rl-$arm-s$s/run.sqlite" "$R/rl-$arm-s$s.samples.json"
      done
    done
    ;;
  *) echo "unknown step (pretrain or rl)" >&2; exit 2 ;;
esac
