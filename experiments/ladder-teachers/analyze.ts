// Tables for the teacher experiment (run.sh here, issue 13 §3.2): per student preparation, over seeds,
// - held-out pass@1 per level of the prepared student before RL (the RL run's step-0 evaluation) and after
//   the same RL stage (its final evaluation), mean ± sd over seeds, with the seed-paired difference of the
//   mean over levels against `none` (no preparation) and against (a) raw worked solutions;
// - the RLT teachers: reward, r_ss (student log-likelihood of the solution), r_KL and explanation length,
//   mean of the first and of the last 10 steps;
// - the distillation sets: examples kept and explanations dropped (not closed within the sampling limit);
// - power (issue 28 item 2): the minimum detectable effect (experiments/lib/mde.ts) on the mean over levels
//   of held-out pass@1 after RL, from the seed spread within the five students.
//   node --import tsx experiments/ladder-teachers/analyze.ts > experiments/ladder-teachers/results/tables.md
import { join } from 'node:path';
import {
  fmt,
  levelMean as meanOver,
  mean,
  passAt1,
  type Row,
  readJson,
  readMetrics,
  type Summary,
  signed,
} from '../lib/analysis.ts';
import { mdeLine } from '../lib/mde.ts';

const here = 'experiments/ladder-teachers';
const seeds = [1, 2, 3];
const levels = [1, 2, 3, 4, 5, 6, 7, 8];
const students = [
  ['none', 'no preparation (the cold start)'],
  ['a', '(a) distilled from the raw worked solutions'],
  ['b', "(b) distilled from the untrained teacher's explanations"],
  ['c', "(c) distilled from the RLT teacher's explanations"],
  ['d', '(d) on-policy distillation from the RLT teacher'],
] as const;

interface TrainJson {
  initialEval?: Summary;
  finalEval: Summary;
  steps: number;
}
interface DistillJson {
  examples: number;
  dropped: number;
}

const levelMean = (summary: Summary | undefined) => meanOver(summary, levels);
const rl = (student: string, seed: number) => readJson<TrainJson>(join(here, 'results', `rl-${student}-s${seed}.json`));

function levelTable(title: string, pick: (run: TrainJson) => Summary | undefined): string[] {
  const lines = [`### ${title}`, '', `| student | seeds | ${levels.map((l) => `${l} digits`).join(' | ')} | mean |`];
  lines.push(`|---|---|${levels.map(() => '---|').join('')}---|`);
  for (const [student, label] of students) {
    const runs = seeds.map((seed) => rl(student, seed)).filter((run): run is TrainJson => run !== undefined);
    const cells = levels.map((level) =>
      fmt(runs.map((run) => passAt1(pick(run), level)).filter((v): v is number => v !== undefined)),
    );
    const means = runs.map((run) => levelMean(pick(run))).filter((v): v is number => v !== undefined);
    lines.push(`| ${label} | ${runs.length} | ${cells.join(' | ')} | ${fmt(means, 3)} |`);
  }
  return [...lines, ''];
}

function pairedTable(pick: (run: TrainJson) => Summary | undefined): string[] {
  const lines = ['| student | Δ vs none | Δ vs (a) |', '|---|---|---|'];
  const paired = (student: string, baseline: string) =>
    seeds.flatMap((seed) => {
      const [ours, base] = [levelMean(pickOf(student, seed)), levelMean(pickOf(baseline, seed))];
      return ours !== undefined && base !== undefined ? [ours - base] : [];
    });
  const pickOf = (student: string, seed: number) => {
    const run = rl(student, seed);
    return run ? pick(run) : undefined;
  };
  for (const [student, label] of students.slice(1)) {
    lines.push(`| ${label} | ${signed(paired(student, 'none'))} | ${student === 'a' ? '—' : signed(paired(student, 'a'))} |`);
  }
  return [...lines, ''];
}

function metrics(name: string): Row[] {
  return (
    readMetrics([join(here, 'raw', name, 'metrics.jsonl.gz'), join('runs/ladder-teachers', name, 'metrics.jsonl')]) ?? []
  );
}

function teacherTable(): string[] {
  const keys = ['reward/mean', 'reward/r_ss', 'reward/r_kl', 'response/length_mean', 'reward/format_miss'];
  const lines = [
    '### The RLT teachers (mean of steps 1-10 → mean of the last 10 steps)',
    '',
    `| seed | ${keys.join(' | ')} | held-out pass@1 (as a solver) step 0 → end |`,
    `|---|${keys.map(() => '---|').join('')}---|`,
  ];
  for (const seed of seeds) {
    if (!readJson(join(here, 'results', `teach-s${seed}.json`))) continue; // not finished
    const rows = metrics(`teach-s${seed}`).filter((row) => row['reward/mean'] !== undefined);
    if (rows.length === 0) continue;
    const span = (part: Record<string, number>[], key: string) => mean(part.map((row) => row[key]));
    const cells = keys.map((key) => `${span(rows.slice(0, 10), key).toFixed(2)} → ${span(rows.slice(-10), key).toFixed(2)}`);
    const evals = metrics(`teach-s${seed}`).filter((row) => row['eval/pass@1'] !== undefined);
    const solver = evals.length ? `${evals[0]['eval/pass@1'].toFixed(3)} → ${evals.at(-1)?.['eval/pass@1'].toFixed(3)}` : '—';
    lines.push(`| ${seed} | ${cells.join(' | ')} | ${solver} |`);
  }
  return [...lines, ''];
}

function distillTable(): string[] {
  const lines = ['### Distillation sets', '', '| student | seed | examples | explanations dropped |', '|---|---|---|---|'];
  for (const student of ['a', 'b', 'c']) {
    for (const seed of seeds) {
      const result = readJson<DistillJson>(join(here, 'results', `student-${student}-s${seed}.json`));
      if (result) lines.push(`| ${student} | ${seed} | ${result.examples} | ${result.dropped} |`);
    }
  }
  return [...lines, ''];
}

function powerSection(): string[] {
  const arms = Object.fromEntries(
    students.map(([student]) => [
      student,
      seeds
        .map((seed) => levelMean(rl(student, seed)?.finalEval))
        .filter((value): value is number => value !== undefined),
    ]),
  );
  return ['### Power', '', mdeLine('the mean over levels of held-out pass@1 after RL', arms), ''];
}

const out = [
  '# Teacher experiment: tables (generated by analyze.ts; do not edit)',
  '',
  ...levelTable('Held-out pass@1 per level of the prepared student, before RL (RL run step 0)', (run) => run.initialEval),
  ...levelTable('Held-out pass@1 per level after the same RL stage', (run) => run.finalEval),
  '### Seed-paired difference of the mean over levels of held-out pass@1 after RL',
  '',
  ...pairedTable((run) => run.finalEval),
  '### The same, before RL (what the preparation alone did)',
  '',
  ...pairedTable((run) => run.initialEval),
  ...teacherTable(),
  ...distillTable(),
  ...powerSection(),
];
process.stdout.write(`${out.join('\n')}\n`);
