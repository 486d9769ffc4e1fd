# Sourced by the experiment scripts: save_raw RUNS_DIR RAW_DIR NAME... copies each named run's config.json,
# result.json (when the experiment wrote one there) and gzipped metrics.jsonl into RAW_DIR/<run>/, the raw
# results committed with the experiment (run directories themselves stay local: checkpoints and stores
# are large). Name only finished runs (a running one would be saved half-way). A run without
# metrics.jsonl is skipped; re-running refreshes the copies.
save_raw() {
  local runs_dir="$1" raw_dir="$2" dir name
  shift 2
  for name in "$@"; do
    dir="$runs_dir/$name"
    [[ -f "$dir/metrics.jsonl" ]] || continue
    mkdir -p "$raw_dir/$name"
    cp "$dir/config.json" "$raw_dir/$name/config.json"
    [[ -f "$dir/result.json" ]] && cp "$dir/result.json" "$raw_dir/$name/result.json"
    gzip -9 -n -c "$dir/metrics.jsonl" > "$raw_dir/$name/metrics.jsonl.gz"
  done
}
