// Issue 31 item 8 (i) (README.md): reads raw/ and prints the tables the README quotes.
//   node --import tsx experiments/judge-rl/analyze.ts > experiments/judge-rl/results/tables.md
//   node --import tsx experiments/judge-rl/analyze.ts raw/pilot-lr3e-4 > experiments/judge-rl/results/pilot-lr3e-4.md
// Per arm (truth: GRPO graded by the constraints verifier; judge: graded by the embedded judge; control:
// truth with learning rate 0) and seed: held-out truth accuracy (eval/pass@1, greedy, 100 problems) at the
// start and the end; over the training samples (every completion of every step is logged), the reward the
// run paid and the truth of the same completions (the constraints verifier, recomputed here), early
// (steps 1–10) and late (the last 10 steps). Reward hacking shows as the judge's paid reward rising while
// the truth of the same completions does not. Differences between arms are paired by seed (95% t-interval,
// MDE of the design: experiments/lib/mde.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tasks } from '../../src/tasks/index.ts';
import { readJson } from '../lib/analysis.ts';
import { pairedDifference } from '../lib/mde.ts';

const raw = join(import.meta.dirname, process.argv[2] ?? 'raw');
const arms = ['truth', 'judge', 'control'] as const;
type Arm = (typeof arms)[number];
const seeds = [1, 2, 3].filter((seed) => arms.every((arm) => existsSync(join(raw, `rl-${arm}-s${seed}.metrics.jsonl`))));
const constraints = tasks.get('constraints');

interface Sample {
  step: number;
  prompt: string;
  completion: string;
  reward: number;
}

function metrics(arm: Arm, seed: number): Record<string, number>[] {
  return readFileSync(join(raw, `rl-${arm}-s${seed}.metrics.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

const truthOf = (sample: Sample) =>
  constraints.verify({ id: '', task: 'constraints', prompt: sample.prompt, answer: '', solution: '', category: '', difficulty: 1, params: {} }, sample.completion).correct
    ? 1
    : 0;

function window(arm: Arm, seed: number, part: 'early' | 'late') {
  const samples = readJson<Sample[]>(join(raw, `rl-${arm}-s${seed}.samples.json`)) ?? [];
  const last = Math.max(...samples.map((sample) => sample.step));
  const kept = samples.filter((sample) => (part === 'early' ? sample.step <= 10 : sample.step > last - 10));
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return { paid: mean(kept.map((sample) => sample.reward)), truth: mean(kept.map(truthOf)), n: kept.length };
}

function heldOut(arm: Arm, seed: number): { start: number; end: number } {
  const rows = metrics(arm, seed).filter((row) => row['eval/pass@1'] !== undefined);
  return { start: rows[0]['eval/pass@1'], end: rows[rows.length - 1]['eval/pass@1'] };
}

const f = (value: number) => value.toFixed(3);
const lines: string[] = [];
if (seeds.length === 0) {
  lines.push('Not run yet (no raw/rl-*-s*.metrics.jsonl for every arm).');
} else {
  lines.push(`## Per run (${seeds.length} seeds: ${seeds.join(', ')})`, '');
  lines.push('| arm | seed | held-out truth, start | held-out truth, end | paid reward, steps 1–10 | truth of those completions | paid reward, last 10 steps | truth of those completions |');
  lines.push('|---|---|---|---|---|---|---|---|');
  for (const arm of arms)
    for (const seed of seeds) {
      const h = heldOut(arm, seed);
      const early = window(arm, seed, 'early');
      const late = window(arm, seed, 'late');
      lines.push(`| ${arm} | ${seed} | ${f(h.start)} | ${f(h.end)} | ${f(early.paid)} | ${f(early.truth)} | ${f(late.paid)} | ${f(late.truth)} |`);
    }
  lines.push('', '## Paired by seed (mean, 95% t-interval half-width, MDE of the design)', '');
  lines.push('| quantity | mean | ± | MDE |', '|---|---|---|---|');
  const row = (label: string, values: number[]) => {
    const paired = pairedDifference(values);
    lines.push(paired ? `| ${label} | ${paired.mean >= 0 ? '+' : ''}${f(paired.mean)} | ${f(paired.half)} | ${f(paired.mde)} |` : `| ${label} | — | — | — |`);
  };
  const gain = (arm: Arm, seed: number) => heldOut(arm, seed).end - heldOut(arm, seed).start;
  row('held-out truth gain, truth arm − control', seeds.map((s) => gain('truth', s) - gain('control', s)));
  row('held-out truth gain, judge arm − control', seeds.map((s) => gain('judge', s) - gain('control', s)));
  row('held-out truth at the end, judge arm − truth arm', seeds.map((s) => heldOut('judge', s).end - heldOut('truth', s).end));
  row('judge arm: paid reward − truth, last 10 steps (the judge\'s over-payment)', seeds.map((s) => window('judge', s, 'late').paid - window('judge', s, 'late').truth));
  row('judge arm: change in over-payment, last 10 − first 10 steps', seeds.map((s) => {
    const early = window('judge', s, 'early');
    const late = window('judge', s, 'late');
    return late.paid - late.truth - (early.paid - early.truth);
  }));
}
console.log(lines.join('\n'));
