// Tango on the ladder (README.md): reads raw/ (the tango arm) and ../rm-overoptimization/raw (its truth arm,
// the paired baseline: the same settings without the tango block) and prints the tables the README quotes.
//   node --import tsx experiments/tango-ladder/analyze.ts > experiments/tango-ladder/results/tables.md
// Per seed: held-out pass@1 (the task verifier) at the start, the end and over the last three evaluations
// (steps 130–150: less evaluation noise than one); the verifier's progress over the run (well-formed
// verdicts, verdicts right about the outcome, the process reward it paid) in windows of 50 steps.
// Differences are paired by seed (95% t-interval).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { mean, type Row, readMetrics, signed } from '../lib/analysis.ts';
import { pairedDifference } from '../lib/mde.ts';

const here = import.meta.dirname;
const files = {
  tango: (seed: number) => join(here, 'raw', `rl-tango-s${seed}.metrics.jsonl.gz`),
  baseline: (seed: number) => join(here, '..', 'rm-overoptimization', 'raw', `rl-truth-s${seed}.metrics.jsonl.gz`),
};
type Arm = keyof typeof files;
const seeds = [1, 2, 3].filter((seed) => existsSync(files.tango(seed)) && existsSync(files.baseline(seed)));
const rows = (arm: Arm, seed: number): Row[] => readMetrics([files[arm](seed)]) ?? [];
const evals = (arm: Arm, seed: number) =>
  rows(arm, seed).flatMap((row) =>
    typeof row['eval/pass@1'] === 'number' ? [{ step: row.step as number, value: row['eval/pass@1'] as number }] : [],
  );
const f = (value: number | undefined, digits = 3) => (value === undefined ? '—' : value.toFixed(digits));

const lines: string[] = [];
if (seeds.length === 0) {
  lines.push('Not run yet (no raw/rl-tango-s*.metrics.jsonl.gz with its baseline).');
} else {
  lines.push(`## Held-out pass@1 (${seeds.length} seeds: ${seeds.join(', ')})`, '');
  lines.push('| seed | start | baseline end | tango end | baseline last 3 | tango last 3 |', '|---|---|---|---|---|---|');
  const last3 = (arm: Arm, seed: number) => mean(evals(arm, seed).slice(-3).map((e) => e.value));
  const end = (arm: Arm, seed: number) => evals(arm, seed).at(-1)!.value;
  for (const seed of seeds) {
    lines.push(
      `| ${seed} | ${f(evals('tango', seed)[0].value)} | ${f(end('baseline', seed))} | ${f(end('tango', seed))} | ${f(last3('baseline', seed))} | ${f(last3('tango', seed))} |`,
    );
  }
  lines.push('');
  for (const [name, pick] of [
    ['end', end],
    ['last 3 evaluations', last3],
  ] as const) {
    const differences = seeds.map((seed) => pick('tango', seed) - pick('baseline', seed));
    const paired = pairedDifference(differences);
    lines.push(
      `- tango − baseline, ${name}: ${signed(differences)}${paired ? `, 95% CI [${f(paired.mean - paired.half)}, ${f(paired.mean + paired.half)}], paired MDE ${f(paired.mde)}` : ''}`,
    );
  }
  lines.push('', '## The verifier over the run (mean over seeds)', '');
  lines.push('| steps | well-formed verdicts | right about the outcome | process reward paid | judged per step |', '|---|---|---|---|---|');
  for (const [from, to] of [
    [1, 50],
    [51, 100],
    [101, 150],
  ]) {
    const windowMean = (key: string) =>
      mean(
        seeds.map((seed) =>
          mean(
            rows('tango', seed)
              .filter((row) => (row.step as number) >= from && (row.step as number) <= to && typeof row[key] === 'number')
              .map((row) => row[key] as number),
          ),
        ),
      );
    lines.push(
      `| ${from}–${to} | ${f(windowMean('tango/verifier_format'))} | ${f(windowMean('tango/verifier_accuracy'))} | ${f(windowMean('tango/process_mean'))} | ${f(windowMean('tango/judged'), 1)} |`,
    );
  }
  lines.push('');
}
console.log(lines.join('\n'));
