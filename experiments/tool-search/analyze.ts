// The search experiment (README.md): reads raw/ (held-out evaluations of the cold starts and of the RL
// arms, with search and without; the training metrics; the pilots' evaluations) and prints the tables the
// README quotes.
//   node --import tsx experiments/tool-search/analyze.ts > experiments/tool-search/results/tables.md
// Comparisons are paired by cold-start seed (one RL run per arm on each): mean difference, 95% t-interval
// and the MDE of that design at the observed spread (experiments/lib/mde.ts).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defined, fmt, levelMean, readJson, readMetrics, type Summary, signed } from '../lib/analysis.ts';
import { pairedDifference } from '../lib/mde.ts';

const raw = join(import.meta.dirname, 'raw');
const levels = [1, 2, 3];
type Env = 'search' | 'none';
type Name = 'cold' | 'search' | 'nosearch' | 'sec';

interface ToolUse {
  callRate: number;
  callsPerSample: number;
  passAt1WithCall: number | null;
  errors?: Record<string, number>;
}
interface EvalJson {
  summary: Summary & { groups: (Summary['groups'][number] & { tools?: ToolUse })[] };
}

const labels: Record<Name, string> = {
  cold: 'cold start (no RL)',
  search: 'RL with search, uniform over hops',
  nosearch: 'RL without search',
  sec: 'RL with search, SEC over hops',
};
const cell = (value: number | null | undefined) => (value === null || value === undefined ? '—' : value.toFixed(3));
const groupOf = (result: EvalJson | undefined, level: number) =>
  result?.summary.groups.find((group) => group.difficulty === level);
const seeds = [1, 2, 3].filter((seed) => existsSync(join(raw, `eval-cold-s${seed}-search.json`)));
const load = (name: Name, seed: number, env: Env) => readJson<EvalJson>(join(raw, `eval-${name}-s${seed}-${env}.json`));
const pass = (name: Name, seed: number, env: Env, at: readonly number[]) =>
  levelMean(load(name, seed, env)?.summary, at);
const calls = (name: Name, seed: number, env: Env, level: number) => groupOf(load(name, seed, env), level)?.tools?.callsPerSample;

function main(): string[] {
  if (seeds.length === 0) return ['## Main comparison', '', 'Not run yet (no raw/eval-cold-s*-search.json).', ''];
  const lines = [
    `## Held-out accuracy (exact match; 100 problems × 8 samples per hop level, T = 1; ${seeds.length} cold-start seeds: ${seeds.join(', ')})`,
    '',
    'Mean ± sd over seeds. "searches" = search calls per question.',
    '',
    '| checkpoint | evaluated | 1-3 hops | 1 hop | 2 hops | 3 hops | searches 1 / 2 / 3 hops |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const name of ['cold', 'search', 'sec', 'nosearch'] as const) {
    for (const env of ['search', 'none'] as const) {
      const have = seeds.filter((seed) => load(name, seed, env));
      if (have.length === 0) continue;
      const at = (levelSet: readonly number[]) => fmt(defined(have.map((seed) => pass(name, seed, env, levelSet))), 3);
      const searches = levels
        .map((level) => fmt(defined(have.map((seed) => calls(name, seed, env, level))), 2))
        .join(' / ');
      lines.push(
        `| ${labels[name]} | ${env === 'search' ? 'with search' : 'without'} | ${at(levels)} | ${at([1])} | ${at([2])} | ${at([3])} | ${env === 'search' ? searches : '—'} |`,
      );
    }
  }
  lines.push('', '### Per cold-start seed (with search unless marked)', '');
  lines.push(
    '| seed | cold 2 / 3 hops | RL uniform 2 / 3 hops | RL SEC 2 / 3 hops | RL without search, without (1-3) | cold without search (1-3) |',
    '|---|---|---|---|---|---|',
  );
  for (const seed of seeds) {
    const two = (name: Name) => `${cell(pass(name, seed, 'search', [2]))} / ${cell(pass(name, seed, 'search', [3]))}`;
    lines.push(
      `| ${seed} | ${two('cold')} | ${two('search')} | ${two('sec')} | ${cell(pass('nosearch', seed, 'none', levels))} | ${cell(pass('cold', seed, 'none', levels))} |`,
    );
  }
  return [...lines, '', ...differences(), ...training()];
}

function differences(): string[] {
  const diff = (a: [Name, Env], b: [Name, Env], at: readonly number[]) =>
    defined(
      seeds.map((seed) => {
        const x = pass(a[0], seed, a[1], at);
        const y = pass(b[0], seed, b[1], at);
        return x === undefined || y === undefined ? undefined : x - y;
      }),
    );
  const rows: [string, number[]][] = [
    ['(ii) RL with search − cold start, 1-3 hops (both with search)', diff(['search', 'search'], ['cold', 'search'], levels)],
    ['(ii) RL with search − cold start, 2 hops', diff(['search', 'search'], ['cold', 'search'], [2])],
    ['(ii) RL with search − cold start, 3 hops', diff(['search', 'search'], ['cold', 'search'], [3])],
    ['(ii) RL with search (with it) − RL without search (without it), 1-3 hops', diff(['search', 'search'], ['nosearch', 'none'], levels)],
    ['(ii) RL without search − cold start, both without search, 1-3 hops', diff(['nosearch', 'none'], ['cold', 'none'], levels)],
    ['(iii) SEC − uniform, 1-3 hops (both with search)', diff(['sec', 'search'], ['search', 'search'], levels)],
    ['(iii) SEC − uniform, 2 hops', diff(['sec', 'search'], ['search', 'search'], [2])],
    ['(iii) SEC − uniform, 3 hops', diff(['sec', 'search'], ['search', 'search'], [3])],
  ];
  const lines = ['### Paired differences (per cold-start seed)', ''];
  for (const [label, values] of rows) {
    const paired = pairedDifference(values);
    lines.push(
      `- ${label}: ${signed(values)}${paired ? `, 95% CI ±${paired.half.toFixed(3)}, MDE of this design ±${paired.mde.toFixed(3)}` : ''}`,
    );
  }
  return [...lines, ''];
}

/** Sampled tokens and the levels each arm trained on (selection shares), from the training metrics. */
function training(): string[] {
  const lines = [
    '### Training: sampled tokens and where the batch went',
    '',
    '| arm | seed | tokens sampled (policy) | share 1 / 2 / 3 hops, first 20 steps | last 20 steps | train reward, last 20 steps |',
    '|---|---|---|---|---|---|',
  ];
  for (const arm of ['search', 'sec', 'nosearch'] as const) {
    for (const seed of seeds) {
      const rows = readMetrics([join(raw, `rl-${arm}-s${seed}.metrics.jsonl`)]);
      if (!rows) continue;
      const steps = rows.filter((row) => typeof row['reward/mean'] === 'number');
      const sum = (key: string) => rows.reduce((total, row) => total + (typeof row[key] === 'number' ? (row[key] as number) : 0), 0);
      const share = (part: typeof steps) =>
        levels
          .map((level) => {
            const values = defined(part.map((row) => row[`selection/share/search-facts/${level}`] as number | undefined));
            return values.length > 0 ? (values.reduce((a, b) => a + b, 0) / values.length).toFixed(2) : '—';
          })
          .join(' / ');
      const reward = defined(steps.slice(-20).map((row) => row['reward/mean'] as number));
      const policy = sum('sampling/policy_tokens');
      lines.push(
        `| ${labels[arm]} | ${seed} | ${sum('sampling/tokens')}${policy > 0 ? ` (${policy})` : ''} | ${share(steps.slice(0, 20))} | ${share(steps.slice(-20))} | ${cell(reward.reduce((a, b) => a + b, 0) / reward.length)} |`,
      );
    }
  }
  return [...lines, ''];
}

function pilots(): string[] {
  const dir = join(raw, 'pilots');
  const lines = [
    '## Pilots of the cold start (with search; T = 1; the all-hops pilot 20 problems × 4 samples, the others 30 × 8)',
    '',
    '| pilot | 1 hop | 2 hops | 3 hops | searches 1 / 2 / 3 hops |',
    '|---|---|---|---|---|',
  ];
  for (const file of readdirSync(dir).filter((name) => name.startsWith('eval-')).sort()) {
    const result = readJson<EvalJson>(join(dir, file));
    if (!result) continue;
    const at = (level: number) => cell(groupOf(result, level)?.passAt['1']);
    const searches = levels.map((level) => cell(groupOf(result, level)?.tools?.callsPerSample)).join(' / ');
    lines.push(`| ${file.replace(/^eval-|\.json$/g, '')} | ${at(1)} | ${at(2)} | ${at(3)} | ${searches} |`);
  }
  return [...lines, ''];
}

console.log(['# Search experiment: tables', '', ...main(), ...pilots()].join('\n'));
