"""Summarises experiments/judge-agreement/results: the judge's held-out accuracy per level (curricula eval,
with a 95% Wilson interval), its agreement through the judge-score reward (accuracy, false-positive rate:
a FAIL judged PASS, the share of true PASS among the items), and the judge's cost as a reward — medians
of the bench runs. Every number in the README comes from this output."""
import json
import math
import statistics
from pathlib import Path

results = Path(__file__).parent / "results"


def wilson(p, n, z=1.96):
    if n == 0:
        return (float("nan"), float("nan"))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


evaluation = json.loads((results / "eval.json").read_text())
print("# Embedded constraints judge: agreement with the truth\n")
print("## Held-out accuracy (curricula eval, greedy, the judge's own A: line)\n")
print("| level | problems | accuracy | 95% CI |")
print("|---|---|---|---|")
for group in evaluation["summary"]["groups"]:
    p, n = group["passAt"]["1"], group["problems"]
    low, high = wilson(p, n)
    print(f"| {group['difficulty']} | {n} | {p:.3f} | [{low:.3f}, {high:.3f}] |")
overall = evaluation["summary"]["overall"]
low, high = wilson(overall["passAt1"], overall["problems"])
print(f"| all | {overall['problems']} | {overall['passAt1']:.3f} | [{low:.3f}, {high:.3f}] |")

benches = [json.loads(path.read_text())["judge-score"] for path in sorted(results.glob("bench-*.json"))]
median = lambda values: statistics.median(values)
print(f"\n## Through the judge-score reward ({len(benches)} bench runs; agreement is the same items each run)\n")
agreement = benches[0]["agreement"]
print("| items | graded | accuracy | false-positive rate (FAIL judged PASS) | true PASS share |")
print("|---|---|---|---|---|")
print(f"| {benches[0]['items']} | {agreement['graded']} | {agreement['accuracy']:.3f} | {agreement['falsePositiveRate']:.3f} | {agreement['truePassShare']:.3f} |")
print("\n## Cost (medians over the runs; the judge served in the same process, 2-core machine, nothing else running)\n")
print("| verdicts/s | latency p50 ms | latency p99 ms | cached hit rate | cached verdicts/s | reward share of an RL step, judge | same, task verifier | step s, judge | step s, verifier |")
print("|---|---|---|---|---|---|---|---|---|")
row = [
    median([b["verdictsPerSecond"] for b in benches]),
    median([b["latencyMs"]["p50"] for b in benches]),
    median([b["latencyMs"]["p99"] for b in benches]),
    median([b["cache"]["hitRate"] for b in benches]),
    median([b["cache"]["verdictsPerSecond"] for b in benches]),
    median([b["rlStep"]["judgeRewardShare"] for b in benches]),
    median([b["rlStep"]["verifierRewardShare"] for b in benches]),
    median([b["rlStep"]["judgeStepSeconds"] for b in benches]),
    median([b["rlStep"]["verifierStepSeconds"] for b in benches]),
]
print("| " + " | ".join(f"{value:.3f}" if value < 10 else f"{value:.1f}" for value in row) + " |")
