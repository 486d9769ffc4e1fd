// Issue 28 claim (iv) (README.md): reads results/ and raw/ and prints the tables the README quotes.
//   node --import tsx experiments/ladder-v2-teachers/analyze.ts > experiments/ladder-v2-teachers/results/tables.md
// Students (run.sh): the ladder-v2 cold start of seed S distilled for 200 steps on one of four sources, and
// the cold start itself (none). Teachers: the teacher cold start of seed S (aligned-addition-explain, step
// 400) and the same after 125 RLT steps. Paired by seed (the teacher's pretraining seed = the student's
// cold start seed): 95% t-interval of the mean difference and that design's MDE.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { alignedAdditionProblem } from '../../src/tasks/aligned-addition.ts';
import { solutionSteps } from '../../src/tasks/task.ts';
import { fmt, mean, type Row, readJson, readMetrics } from '../lib/analysis.ts';
import { pairedCells, pairedDifference, pairedDifferences, signedDifference } from '../lib/mde.ts';

const here = import.meta.dirname;
const results = join(here, 'results');
const raw = join(here, 'raw');
const seeds = [2, 3, 4] as const;
const students = ['cold', 'answers', 'solutions', 'teacher-cold', 'teacher-rlt'] as const;
type Student = (typeof students)[number];
const labels: Record<Student, string> = {
  cold: 'none (the cold start)',
  answers: 'answers only (question → A:answer)',
  solutions: "the task's own traces (oracle)",
  'teacher-cold': "untrained teacher's traces",
  'teacher-rlt': "RLT teacher's traces",
};
const seen = [1, 2, 3, 4, 5, 6, 7, 8];
const levels = [...seen, 9, 10];

interface Summary {
  groups: { difficulty: number; passAt: Record<string, number> }[];
}
const evalOf = (student: Student, seed: number) =>
  readJson<{ summary: Summary }>(join(results, `eval-${student}-s${seed}-seed11.json`))?.summary;
const passAt1 = (summary: Summary, level: number) =>
  summary.groups.find((group) => group.difficulty === level)?.passAt['1'];
const seenMean = (summary: Summary) => mean(seen.map((level) => passAt1(summary, level) ?? 0));

const lines: string[] = ['# Teachers on ladder v2: tables', ''];

// 1. Held-out pass@1 of every student at seed 11.
lines.push('## Students: held-out pass@1 per level at seed 11 (100 problems × 4 samples, T = 1)', '');
lines.push(`| student | seed | ${levels.map((level) => `${level}d`).join(' | ')} | mean 1–8 |`);
lines.push(`|---|---|${levels.map(() => '---|').join('')}---|`);
const means = new Map<Student, Map<number, number>>();
for (const student of students) {
  const bySeed = new Map<number, number>();
  for (const seed of seeds) {
    const summary = evalOf(student, seed);
    if (!summary) continue;
    bySeed.set(seed, seenMean(summary));
    const cells = levels.map((level) => passAt1(summary, level)?.toFixed(3) ?? '—');
    lines.push(`| ${labels[student]} | ${seed} | ${cells.join(' | ')} | ${seenMean(summary).toFixed(3)} |`);
  }
  means.set(student, bySeed);
}
lines.push('');
lines.push('Mean over levels 1–8, mean ± sd over seeds:', '');
lines.push('| student | seeds | mean 1–8 |');
lines.push('|---|---|---|');
for (const student of students) {
  const values = [...(means.get(student)?.values() ?? [])];
  if (values.length > 0) lines.push(`| ${labels[student]} | ${values.length} | ${fmt(values, 3)} |`);
}
lines.push('');

// 2. Paired comparisons.
function pairedRow(a: Student, b: Student): string {
  const differences = pairedDifferences(seeds, means.get(a) ?? new Map(), means.get(b) ?? new Map());
  return `| ${labels[a]} − ${labels[b]} | ${pairedCells(differences)} |`;
}
lines.push('## Paired by seed: mean pass@1 over levels 1–8 (95% t-interval; MDE of the paired design)', '');
lines.push('| comparison | pairs | per seed | mean | 95% CI | MDE |');
lines.push('|---|---|---|---|---|---|');
for (const [a, b] of [
  ['teacher-rlt', 'teacher-cold'],
  ['teacher-rlt', 'answers'],
  ['teacher-rlt', 'solutions'],
  ['teacher-cold', 'answers'],
  ['solutions', 'answers'],
  ['answers', 'cold'],
  ['solutions', 'cold'],
  ['teacher-cold', 'cold'],
  ['teacher-rlt', 'cold'],
] as const) {
  lines.push(pairedRow(a, b));
}
lines.push('');

// 3. The teachers' explanations: how often the trace is the task's own (exact), per level.
interface Explanation {
  problemId: string;
  prompt: string;
  explanation: string;
  kept: boolean;
}
function explanations(run: string): Explanation[] | undefined {
  const path = join(raw, run, 'explanations.jsonl.gz');
  if (!existsSync(path)) return undefined;
  return gunzipSync(readFileSync(path))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Explanation);
}
/** The gold column trace of an aligned-addition prompt. */
function goldTrace(prompt: string): { trace: string; digits: number } {
  const [left, right] = prompt.trim().split('+').map((operand) => operand.replace(/^\.*/, ''));
  const problem = alignedAdditionProblem(left, right);
  return { trace: solutionSteps(problem.solution).join('\n'), digits: problem.difficulty };
}
lines.push("## The teachers' explanations of the 2,000 distillation problems: share exactly the task's trace", '');
lines.push(`| teacher | seed | closed | ${seen.map((level) => `${level}d`).join(' | ')} | all |`);
lines.push(`|---|---|---|${seen.map(() => '---|').join('')}---|`);
const exact = new Map<string, Map<number, number>>();
for (const teacher of ['teacher-cold', 'teacher-rlt'] as const) {
  const bySeed = new Map<number, number>();
  for (const seed of seeds) {
    const list = explanations(`student-${teacher}-s${seed}`);
    if (!list) continue;
    const byLevel = new Map<number, number[]>();
    for (const item of list) {
      const gold = goldTrace(item.prompt);
      const hit = item.kept && item.explanation === gold.trace ? 1 : 0;
      byLevel.set(gold.digits, [...(byLevel.get(gold.digits) ?? []), hit]);
    }
    const all = [...byLevel.values()].flat();
    bySeed.set(seed, mean(all));
    const closed = mean(list.map((item) => (item.kept ? 1 : 0)));
    const cells = seen.map((level) => (byLevel.has(level) ? mean(byLevel.get(level) as number[]).toFixed(3) : '—'));
    lines.push(`| ${labels[teacher]} | ${seed} | ${closed.toFixed(3)} | ${cells.join(' | ')} | ${mean(all).toFixed(3)} |`);
  }
  exact.set(teacher, bySeed);
}
lines.push('');
{
  const differences = pairedDifferences(seeds, exact.get('teacher-rlt') ?? new Map(), exact.get('teacher-cold') ?? new Map());
  const result = pairedDifference(differences);
  if (result) {
    lines.push(
      `Exact-trace share, RLT − untrained teacher, paired by seed: ${signedDifference(result.mean)} [${signedDifference(result.mean - result.half)}, ${signedDifference(result.mean + result.half)}], MDE ±${result.mde.toFixed(3)}.`,
      '',
    );
  }
}

// 4. The RLT runs: reward terms over training (first and last 25 steps).
lines.push('## RLT runs: the first and the last 25 steps (means)', '');
lines.push('| seed | steps | solution log-prob ℓ | KL k | distinct explanations | reward |');
lines.push('|---|---|---|---|---|---|');
for (const seed of seeds) {
  const rows = readMetrics([join(raw, `teach-s${seed}`, 'metrics.jsonl.gz')]);
  if (!rows) continue;
  const training = rows.filter((row: Row) => typeof row['reward/solution_logprob'] === 'number');
  for (const [label, part] of [
    ['1–25', training.slice(0, 25)],
    [`${training.length - 24}–${training.length}`, training.slice(-25)],
  ] as const) {
    const avg = (key: string) => mean(part.map((row) => (typeof row[key] === 'number' ? (row[key] as number) : 0)));
    lines.push(
      `| ${seed} | ${label} | ${avg('reward/solution_logprob').toFixed(3)} | ${avg('reward/kl').toFixed(3)} | ${avg('rlt/distinct').toFixed(3)} | ${avg('reward/mean').toFixed(3)} |`,
    );
  }
}
lines.push('');

process.stdout.write(`${lines.join('\n')}\n`);
