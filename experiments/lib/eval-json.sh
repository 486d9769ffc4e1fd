# Sourced by the experiment scripts that evaluate checkpoints on problem sets (ladder-guidance,
# ladder-v2-guidance):
#   eval_json OUT [curricula eval arguments...]  `curricula eval --json` at T = 1 on one worker; OUT is written
#                                                only when the evaluation ends well, and skipped when present.
#   zero_success OUT RESULT POOL                 the problems of POOL (JSONL) that RESULT (an eval_json of POOL
#                                                with --per-problem) got 0 correct on; OUT written when absent.
eval_json() {
  local out="$1"; shift
  [[ -f "$out" ]] && return 0
  ./bin/curricula.mjs eval "$@" --temperature 1 --workers 1 --quiet --json > "$out.tmp" && mv "$out.tmp" "$out"
}
zero_success() {
  local out="$1" result="$2" pool="$3"
  [[ -f "$out" ]] && return 0
  node -e '
    const [result, pool] = process.argv.slice(1).map((f) => require("fs").readFileSync(f, "utf8"));
    const zero = new Set(JSON.parse(result).perProblem.filter((p) => p.correct === 0).map((p) => p.id));
    process.stdout.write(pool.split("\n").filter((l) => l && zero.has(JSON.parse(l).id)).map((l) => l + "\n").join(""));
  ' "$result" "$pool" > "$out.tmp" && mv "$out.tmp" "$out"
}
export -f eval_json zero_success
