// The claims on the new ladder (README.md): reads raw/<run>/ (config, result, gzipped metrics) of run.sh's
// sweeps and prints the tables the README quotes.
//   node --import tsx experiments/ladder-v2-claims/analyze.ts > experiments/ladder-v2-claims/results/tables.md
// Design: one RL seed on each of 3 cold starts per setting, blocked by cold start, so every comparison is a
// paired difference over cold starts (n = 3, df = 2): mean, 95% t-interval, and the MDE of that paired
// design from the observed SD of the differences, (t_{0.975,n−1} + t_{0.8,n−1})·sd/√n. The planned MDE
// (from the RL pilot, before these runs) is in experiments/ladder-v2/results/plan-rl-pilot.txt.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { evalSamplingVariance, minimumDetectableEffect, varianceComponents } from '../../src/eval/power.ts';
import { mean, readMetrics, type Row } from '../lib/analysis.ts';
import { pairedDifference } from '../lib/mde.ts';

const rawDir = process.argv[2] ?? join(import.meta.dirname, 'raw'); // another raw/: a dry run, or ../ladder-v2-dapo-tokens
const levels = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

interface Run {
  name: string;
  setting: string;
  cold: number;
  curve: Map<number, number>; // eval step → eval/pass@1 (all levels)
  tokens: number; // completion tokens sampled over the run
  tokensAt: Map<number, number>; // eval step → completion tokens sampled up to and including that step
  initial: Row; // the step-0 evaluation's metrics
  final: Row; // the last evaluation's metrics
}

// Runs of `curricula sweep` write no result.json: everything is read from metrics.jsonl.
function load(): Run[] {
  const runs: Run[] = [];
  for (const name of readdirSync(rawDir).sort()) {
    const match = /^(?:(lr0)-)?(?:(\w+)-)?examples-checkpoints-ladder-v2-cold-s(\d)-s1$/.exec(name);
    if (!match) throw new Error(`analyze: unexpected run name ${name}`);
    const rows = readMetrics([join(rawDir, name, 'metrics.jsonl.gz')]) as Row[];
    const evals = rows.filter((row) => typeof row['eval/pass@1'] === 'number');
    const curve = new Map(evals.map((row) => [Number(row.step), row['eval/pass@1'] as number]));
    const sampled = (upTo: number) =>
      rows.reduce((sum, row) => sum + (Number(row.step) <= upTo && typeof row['sampling/tokens'] === 'number' ? (row['sampling/tokens'] as number) : 0), 0);
    const tokens = sampled(Number.POSITIVE_INFINITY);
    const tokensAt = new Map([...curve.keys()].map((step) => [step, sampled(step)]));
    runs.push({ name, setting: match[1] ?? match[2], cold: Number(match[3]), curve, tokens, tokensAt, initial: evals[0], final: evals[evals.length - 1] });
  }
  return runs;
}

const f3 = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(3));
const signed3 = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
const finalOf = (run: Run) => run.curve.get(Math.max(...run.curve.keys()))!;
const initialOf = (run: Run) => run.curve.get(0)!;

/** A paired comparison over cold starts: mean difference, 95% interval, observed-SD MDE (n − 1 df). */
function paired(differences: number[]): string {
  const result = pairedDifference(differences);
  if (result === null) return `${differences.map(signed3).join(', ')} (n=${differences.length}: no interval)`;
  const { mean: m, half, sd: s, mde, n } = result;
  return `mean ${signed3(m)}, 95% interval [${signed3(m - half)}, ${signed3(m + half)}], SD of the differences ${s.toFixed(3)}, MDE of this paired design ±${mde.toFixed(3)} (n=${n} cold starts)`;
}

const runs = load();
const by = (setting: string) => new Map(runs.filter((run) => run.setting === setting).map((run) => [run.cold, run]));
const uniform = by('uniform');
const colds = [...uniform.keys()].sort();

console.log('## Runs\n');
console.log('eval/pass@1 over all 10 levels (100 problems × 4 samples per level, T = 1) at each evaluation step, and');
console.log('the completion tokens sampled over the run.\n');
const steps = [...new Set(runs.flatMap((run) => [...run.curve.keys()]))].sort((a, b) => a - b);
console.log(`| setting | cold start | ${steps.map((step) => `step ${step}`).join(' | ')} | tokens sampled |`);
console.log(`|---|---|${steps.map(() => '---|').join('')}---|`);
for (const run of runs) {
  console.log(`| ${run.setting} | s${run.cold} | ${steps.map((step) => f3(run.curve.get(step))).join(' | ')} | ${run.tokens.toLocaleString('en-US')} |`);
}

console.log('\n## Claim (i): sec against uniform, paired by cold start\n');
const sec = by('sec');
const differences: number[] = [];
console.log('| cold start | uniform final | sec final | Δ | first step sec ≥ uniform final | sec tokens / uniform tokens |');
console.log('|---|---|---|---|---|---|');
for (const cold of colds) {
  const u = uniform.get(cold)!;
  const s = sec.get(cold);
  if (!s) continue;
  const target = finalOf(u);
  const reached = [...s.curve.entries()].sort((a, b) => a[0] - b[0]).find(([, value]) => value >= target);
  differences.push(finalOf(s) - target);
  console.log(`| s${cold} | ${f3(target)} | ${f3(finalOf(s))} | ${signed3(finalOf(s) - target)} | ${reached ? reached[0] : 'not reached'} | ${(s.tokens / u.tokens).toFixed(3)} |`);
}
console.log(`\nFinal held-out pass@1, sec − uniform: ${paired(differences)}.`);

/** pass@1 at the first evaluation of `run` at or past `budget` sampled tokens; null past its last one. */
function passAtNextEvaluation(run: Run, budget: number): number | null {
  const step = [...run.curve.keys()].sort((a, b) => a - b).find((s) => run.tokensAt.get(s)! >= budget);
  return step === undefined ? null : run.curve.get(step)!;
}

/** pass@1 of a run at `budget` sampled tokens, linear between its evaluations; null past its last one. */
function passAtTokens(run: Run, budget: number): number | null {
  const points = [...run.curve.keys()].sort((a, b) => a - b).map((step) => [run.tokensAt.get(step)!, run.curve.get(step)!]);
  for (let i = 1; i < points.length; i++) {
    const [t0, p0] = points[i - 1];
    const [t1, p1] = points[i];
    if (budget <= t1) return p0 + ((p1 - p0) * (budget - t0)) / (t1 - t0);
  }
  return null;
}

for (const [setting, what] of [['dapo', 'dynamic sampling (DAPO)'], ['balanced', 'the online-filtering selector']] as const) {
  const arm = by(setting);
  if (arm.size === 0) continue;
  console.log(`\n## Claim (ii): ${setting}, ${what}, against uniform at equal steps and at equal tokens\n`);
  console.log(`pass@1 at equal tokens: ${setting}'s curve read at uniform's total sampled tokens, linear between its`);
  const evalSteps = [...[...arm.values()][0].curve.keys()].sort((x, y) => x - y);
  console.log(`evaluations (every ${evalSteps[1] - evalSteps[0]} steps); where it sampled fewer tokens in all, its final value (marked *). A rising`);
  console.log('concave curve lies above its chord, so the linear reading is a lower bound; the first evaluation past');
  console.log("uniform's tokens is an upper bound (while the curve rises).\n");
  console.log(`| cold start | uniform final | ${setting} final | Δ at equal steps | ${setting} tokens / uniform tokens | ${setting} at uniform's tokens | Δ at equal tokens | upper bound: Δ at the next evaluation |`);
  console.log('|---|---|---|---|---|---|---|---|');
  const atSteps: number[] = [];
  const atTokens: number[] = [];
  const atNext: number[] = [];
  for (const cold of colds) {
    const u = uniform.get(cold)!;
    const a = arm.get(cold);
    if (!a) continue;
    const read = passAtTokens(a, u.tokens);
    const equal = read ?? finalOf(a);
    atSteps.push(finalOf(a) - finalOf(u));
    atTokens.push(equal - finalOf(u));
    const next = passAtNextEvaluation(a, u.tokens) ?? finalOf(a);
    atNext.push(next - finalOf(u));
    console.log(`| s${cold} | ${f3(finalOf(u))} | ${f3(finalOf(a))} | ${signed3(finalOf(a) - finalOf(u))} | ${(a.tokens / u.tokens).toFixed(3)} | ${f3(equal)}${read === null ? '*' : ''} | ${signed3(equal - finalOf(u))} | ${signed3(next - finalOf(u))} |`);
  }
  console.log(`\nFinal held-out pass@1, ${setting} − uniform, at equal steps: ${paired(atSteps)}.`);
  console.log(`At equal sampled tokens (linear reading, a lower bound): ${paired(atTokens)}.`);
  console.log(`At the next evaluation (an upper bound): ${paired(atNext)}.`);
}

console.log('\n## Control: zero learning rate (train.learningRate = 0)\n');
const lr0 = by('lr0');
// Held-out problems of an evaluation: 100 per level but 26 at 1 digit (all the 1-digit problems the
// canonical split holds out; experiments/ladder-v2/raw/uniform-c2-s1/result.json lists the counts).
const heldOutProblems = 26 + 9 * 100;
// the SD of (final − initial) of a model that does not change: two independent evaluations' sampling noise
const driftSd = (run: Run) => Math.sqrt(2 * evalSamplingVariance(initialOf(run), heldOutProblems, 4));
console.log('| cold start | lr-0 step 0 | lr-0 last evaluation | lr-0 drift | 2 × SD of a drift from evaluation noise alone | uniform gain | uniform gain − lr-0 drift |');
console.log('|---|---|---|---|---|---|---|');
const gains: number[] = [];
for (const cold of colds) {
  const z = lr0.get(cold);
  const u = uniform.get(cold)!;
  if (!z) continue;
  const drift = finalOf(z) - initialOf(z);
  const gain = finalOf(u) - initialOf(u);
  gains.push(gain - drift);
  console.log(`| s${cold} | ${f3(initialOf(z))} | ${f3(finalOf(z))} | ${signed3(drift)} | ${(2 * driftSd(z)).toFixed(3)} | ${signed3(gain)} | ${signed3(gain - drift)} |`);
}
console.log(`\nUniform GRPO's gain over the zero-learning-rate run: ${paired(gains)}.`);

console.log('\n## Claim (v): pass@k per level before and after uniform GRPO (mean over cold starts)\n');
console.log('pass@1 and pass@4 of the initial and final evaluations (the same 100 held-out problems per level, 4 samples).\n');
console.log('| level | pass@1 before | pass@1 after | Δ pass@1 | pass@4 before | pass@4 after | Δ pass@4 |');
console.log('|---|---|---|---|---|---|---|');
const at = (row: Row, level: number, k: string) => row[`eval/pass@${k}/aligned-addition/${level}`] as number;
const uniformRuns = colds.map((cold) => uniform.get(cold)!);
for (const level of levels) {
  const v = (which: 'initial' | 'final', k: string) => mean(uniformRuns.map((run) => at(run[which], level, k)));
  console.log(`| ${level} | ${f3(v('initial', '1'))} | ${f3(v('final', '1'))} | ${signed3(v('final', '1') - v('initial', '1'))} | ${f3(v('initial', '4'))} | ${f3(v('final', '4'))} | ${signed3(v('final', '4') - v('initial', '4'))} |`);
}
const overall = (run: Run, which: 'initial' | 'final', k: string) => run[which][`eval/pass@${k}`] as number;
const gap = uniformRuns.map((run) => overall(run, 'final', '4') - overall(run, 'final', '1') - (overall(run, 'initial', '4') - overall(run, 'initial', '1')));
console.log(`\nChange of the pass@4 − pass@1 gap over all levels (after − before): ${paired(gap)}.`);

console.log('\n## Power\n');
// The pilot's second RL seed on cold start s2 (experiments/ladder-v2/raw/uniform-c2-s2) beside this
// folder's uniform runs (RL seed 1 on s2, s3, s4; the s2 run repeats the pilot's seed-1 run to the last
// digit): two runs on one cold start give the RL-seed spread, three cold starts the cold-start spread.
const pilotRows = readMetrics([join(import.meta.dirname, '..', 'ladder-v2', 'raw', 'uniform-c2-s2', 'metrics.jsonl.gz')])!;
const pilotFinal = pilotRows.filter((row) => typeof row['eval/pass@1'] === 'number').at(-1)!['eval/pass@1'] as number;
const groups = colds.map((cold) => [finalOf(uniform.get(cold)!), ...(cold === 2 ? [pilotFinal] : [])]);
const components = varianceComponents(groups, { problems: heldOutProblems, samples: 4 });
console.log(
  `Variance components of uniform's final held-out pass@1 (${groups.flat().length} runs on ${groups.length} cold starts): ` +
    `cold start SD ${Math.sqrt(components.coldStart).toFixed(4)}, RL seed SD ${Math.sqrt(components.rlSeed).toFixed(4)}, ` +
    `evaluation sampling SD ${Math.sqrt(evalSamplingVariance(components.pass, heldOutProblems, 4)).toFixed(4)}.`,
);
const test = { alpha: 0.05, power: 0.8 };
for (const rlSeeds of [1, 2, 3]) {
  const design = { coldStarts: 3, rlSeeds, evalProblems: heldOutProblems, evalSamples: 4, blocked: true };
  console.log(`- 3 cold starts × ${rlSeeds} RL seed(s) per arm, blocked: MDE ±${minimumDetectableEffect(components, design, test).toFixed(3)}`);
}
