// The compositions experiment (README.md): reads raw/ (evaluations of the cold starts and of their RL
// models on compositions never trained and on trained ones with new inputs; the pilots') and prints the
// tables the README quotes.
//   node --import tsx experiments/string-compositions/analyze.ts > experiments/string-compositions/results/tables.md
// Comparisons are paired by cold-start seed (one RL run on each): mean difference, 95% t-interval and the
// MDE of that design at the observed spread (experiments/lib/mde.ts).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defined, fmt, readJson, type Summary, signed } from '../lib/analysis.ts';
import { pairedDifference } from '../lib/mde.ts';

const raw = join(import.meta.dirname, 'raw');
type Set = 'unseen' | 'seen';
type Name = 'cold' | 'rl';
interface EvalJson {
  summary: Summary;
}

const seeds = [1, 2, 3].filter((seed) => existsSync(join(raw, `eval-cold-s${seed}-unseen.json`)));
const load = (name: Name, seed: number, set: Set) => readJson<EvalJson>(join(raw, `eval-${name}-s${seed}-${set}.json`));
const at = (result: EvalJson | undefined, depth: number, k: '1' | '8') =>
  result?.summary.groups.find((group) => group.difficulty === depth)?.passAt[k];
const cell = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(3));

function main(): string[] {
  if (seeds.length === 0) return ['Not run yet (no raw/eval-cold-s*-unseen.json).', ''];
  const lines = [
    `## pass@1 (pass@8) on 100 problems per depth, 8 samples, T = 1 (${seeds.length} cold-start seeds: ${seeds.join(', ')})`,
    '',
    'Mean ± sd over seeds. "unseen": compositions never trained; "seen": trained compositions on new inputs.',
    '',
    '| checkpoint | set | depth 2 pass@1 | depth 2 pass@8 | depth 3 pass@1 | depth 3 pass@8 |',
    '|---|---|---|---|---|---|',
  ];
  for (const name of ['cold', 'rl'] as const)
    for (const set of ['unseen', 'seen'] as const) {
      const of = (depth: number, k: '1' | '8') => fmt(defined(seeds.map((seed) => at(load(name, seed, set), depth, k))), 3);
      lines.push(
        `| ${name === 'cold' ? 'cold start (no RL)' : 'GRPO on trained compositions'} | ${set} | ${of(2, '1')} | ${of(2, '8')} | ${of(3, '1')} | ${of(3, '8')} |`,
      );
    }
  lines.push('', '### Per cold-start seed, pass@1 at depth 2 (depth 3)', '');
  lines.push('| seed | cold unseen | RL unseen | cold seen | RL seen |', '|---|---|---|---|---|');
  for (const seed of seeds) {
    const both = (name: Name, set: Set) =>
      `${cell(at(load(name, seed, set), 2, '1'))} (${cell(at(load(name, seed, set), 3, '1'))})`;
    lines.push(`| ${seed} | ${both('cold', 'unseen')} | ${both('rl', 'unseen')} | ${both('cold', 'seen')} | ${both('rl', 'seen')} |`);
  }
  lines.push('', '### Paired differences (per cold-start seed), pass@1', '');
  const diff = (a: [Name, Set], b: [Name, Set], depth: number) =>
    defined(
      seeds.map((seed) => {
        const x = at(load(a[0], seed, a[1]), depth, '1');
        const y = at(load(b[0], seed, b[1]), depth, '1');
        return x === undefined || y === undefined ? undefined : x - y;
      }),
    );
  const gap = (name: Name) => diff([name, 'seen'], [name, 'unseen'], 2);
  const rows: [string, number[]][] = [
    ['RL − cold start, unseen compositions, depth 2', diff(['rl', 'unseen'], ['cold', 'unseen'], 2)],
    ['RL − cold start, unseen compositions, depth 3', diff(['rl', 'unseen'], ['cold', 'unseen'], 3)],
    ['RL − cold start, seen compositions, depth 2', diff(['rl', 'seen'], ['cold', 'seen'], 2)],
    ['seen − unseen, depth 2, cold start', gap('cold')],
    ['seen − unseen, depth 2, after RL', gap('rl')],
    [
      'change of the seen − unseen gap with RL, depth 2',
      seeds.map((_, i) => (gap('rl')[i] ?? Number.NaN) - (gap('cold')[i] ?? Number.NaN)).filter(Number.isFinite),
    ],
  ];
  for (const [label, values] of rows) {
    const paired = pairedDifference(values);
    lines.push(
      `- ${label}: ${signed(values)}${paired ? `, 95% CI ±${paired.half.toFixed(3)}, MDE of this design ±${paired.mde.toFixed(3)}` : ''}`,
    );
  }
  return [...lines, ''];
}

function pilots(): string[] {
  const dir = join(raw, 'pilots');
  const lines = [
    '## Pilots of the cold start (seed 1; 8 samples, T = 1): pass@1 at depth 2 (depth 3)',
    '',
    '| depth-2 weight | unseen | seen |',
    '|---|---|---|',
  ];
  const weights = [...new Set(readdirSync(dir).map((file) => /^eval-d2-([\d.]+)-s1-/.exec(file)?.[1]).filter(Boolean))];
  for (const weight of weights.sort()) {
    const of = (set: Set) => {
      const result = readJson<EvalJson>(join(dir, `eval-d2-${weight}-s1-${set}.json`));
      return `${cell(at(result, 2, '1'))} (${cell(at(result, 3, '1'))})`;
    };
    lines.push(`| ${weight} | ${of('unseen')} | ${of('seen')} |`);
  }
  return [...lines, ''];
}

console.log(['# Compositions experiment: tables', '', ...main(), ...pilots()].join('\n'));
