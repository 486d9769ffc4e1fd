#!/usr/bin/env bash
# math-answer against Math-Verify's own test suite (issue 31 item 7). Needs a local checkout of
# huggingface/Math-Verify (its tests/ directory is read, never copied here):
#   experiments/math-verify-suite/run.sh /path/to/Math-Verify
# Writes results/agreement.md (counts per test; no case text). Disagreements: add --show to compare.mts.
set -euo pipefail
cd "$(dirname "$0")/../.."
checkout=${1:?the path of a Math-Verify checkout}
[ -d "$checkout/tests" ] || { echo "no tests/ in $checkout" >&2; exit 2; }
E=experiments/math-verify-suite
cases=$(mktemp)
trap 'rm -f "$cases"' EXIT
python3 $E/extract_cases.py "$checkout" > "$cases"
mkdir -p $E/results
node --import tsx $E/compare.mts "$cases" > $E/results/agreement.md
cat $E/results/agreement.md
