// The calculator experiment (README.md): reads raw/ (evaluations of the cold starts and of both RL arms,
// with and without the tool; the pilots' evaluations) and prints the tables the README quotes.
//   node --import tsx experiments/tool-calculator/analyze.ts > experiments/tool-calculator/results/tables.md
// Comparisons are paired by cold-start seed (one RL run per arm on each): mean difference, 95% t-interval
// and the MDE of that design at the observed spread (experiments/lib/mde.ts).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defined, fmt, levelMean, readJson, readMetrics, type Summary, signed } from '../lib/analysis.ts';
import { pairedDifference } from '../lib/mde.ts';

const raw = join(import.meta.dirname, 'raw');
const levels = [1, 2, 3, 4, 5, 6, 7, 8];
const long = [7, 8];

interface ToolUse {
  callRate: number;
  callsPerSample: number;
  passAt1WithCall: number | null;
}
interface EvalJson {
  summary: Summary & {
    groups: (Summary['groups'][number] & { tools?: ToolUse })[];
    overall: { passAt1: number; tools?: ToolUse };
  };
}

const groupOf = (result: EvalJson | undefined, level: number) =>
  result?.summary.groups.find((group) => group.difficulty === level);
const cell = (value: number | null | undefined) => (value === null || value === undefined ? '—' : value.toFixed(3));

/** One row per level: pass@1, call rate, pass@1 of the calling samples. */
function levelRows(title: string, result: EvalJson): string[] {
  const lines = [`#### ${title}`, '', '| level | pass@1 | call rate | calls/sample | pass@1 calling |', '|---|---|---|---|---|'];
  for (const level of levels) {
    const group = groupOf(result, level);
    if (!group) continue;
    const tools = group.tools;
    lines.push(
      `| ${level} | ${cell(group.passAt['1'])} | ${cell(tools?.callRate)} | ${cell(tools?.callsPerSample)} | ${cell(tools?.passAt1WithCall)} |`,
    );
  }
  return [...lines, ''];
}

function pilots(): string[] {
  const dir = join(raw, 'pilots');
  const lines = ['## Pilots of the cold start (40 held-out problems × 8 samples per level, T = 1, with the calculator)', ''];
  for (const file of readdirSync(dir).filter((name) => name.startsWith('eval-')).sort()) {
    const result = readJson<EvalJson>(join(dir, file));
    if (result) lines.push(...levelRows(file.replace(/^eval-|-tools-calc\.json$/g, ''), result));
  }
  return lines;
}

const seeds = [1, 2, 3].filter((seed) => existsSync(join(raw, `eval-cold-s${seed}-tools-calc.json`)));
const load = (name: string, seed: number, tools: 'calc' | 'none') =>
  readJson<EvalJson>(join(raw, `eval-${name}-s${seed}-tools-${tools}.json`));

function arms(): string[] {
  if (seeds.length === 0) return ['## Main comparison', '', 'Not run yet (no raw/eval-cold-s*.json).', ''];
  const lines = [
    `## Held-out pass@1 (100 problems × 8 samples per level, T = 1; ${seeds.length} cold-start seeds: ${seeds.join(', ')})`,
    '',
    '| checkpoint | evaluated | seeds | 1-8 digits | 7-8 digits | call rate 7-8 | pass@1 of calling samples 7-8 |',
    '|---|---|---|---|---|---|---|',
  ];
  const longOf = (result: EvalJson | undefined, key: 'callRate' | 'passAt1WithCall') =>
    defined(long.map((level) => groupOf(result, level)?.tools?.[key] ?? undefined));
  for (const name of ['cold', 'tool', 'notool'] as const) {
    for (const tools of ['calc', 'none'] as const) {
      const results = defined(seeds.map((seed) => (load(name, seed, tools) ? seed : undefined))).map(
        (seed) => load(name, seed, tools)!,
      );
      if (results.length === 0) continue;
      const all = defined(results.map((result) => levelMean(result.summary, levels)));
      const hard = defined(results.map((result) => levelMean(result.summary, long)));
      const rate = results.map((result) => longOf(result, 'callRate')).filter((v) => v.length > 0).map((v) => v.reduce((a, b) => a + b, 0) / v.length);
      const calling = results.map((result) => longOf(result, 'passAt1WithCall')).filter((v) => v.length > 0).map((v) => v.reduce((a, b) => a + b, 0) / v.length);
      const label = { cold: 'cold start (no RL)', tool: 'RL with the calculator', notool: 'RL without it' }[name];
      lines.push(
        `| ${label} | ${tools === 'calc' ? 'with the calculator' : 'without'} | ${results.length} | ${fmt(all, 3)} | ${fmt(hard, 3)} | ${fmt(rate, 3)} | ${fmt(calling, 3)} |`,
      );
    }
  }
  lines.push('', '### Per cold-start seed, 7-8 digits', '');
  lines.push(
    '| seed | cold, with / without | RL with it, evaluated with it | RL without it, evaluated without | call rate 7-8: cold → RL with it | tokens sampled: RL with it (policy) / without |',
    '|---|---|---|---|---|---|',
  );
  const tokens = (arm: string, seed: number, key: string) =>
    (readMetrics([join(raw, `rl-${arm}-s${seed}.metrics.jsonl`)]) ?? []).reduce(
      (sum, row) => sum + (typeof row[key] === 'number' ? (row[key] as number) : 0),
      0,
    );
  for (const seed of seeds) {
    const hard = (name: string, tools: 'calc' | 'none') => cell(levelMean(load(name, seed, tools)?.summary, long));
    const rate = (name: string) => {
      const values = defined(long.map((level) => groupOf(load(name, seed, 'calc'), level)?.tools?.callRate));
      return values.length > 0 ? cell(values.reduce((a, b) => a + b, 0) / values.length) : '—';
    };
    const policy = tokens('tool', seed, 'sampling/policy_tokens');
    lines.push(
      `| ${seed} | ${hard('cold', 'calc')} / ${hard('cold', 'none')} | ${hard('tool', 'calc')} | ${hard('notool', 'none')} | ${rate('cold')} → ${rate('tool')} | ${tokens('tool', seed, 'sampling/tokens')} (${policy > 0 ? policy : '—'}) / ${tokens('notool', seed, 'sampling/tokens')} |`,
    );
  }
  lines.push('', '### Paired differences on 7-8 digits (per cold-start seed)', '');
  const diff = (a: [string, 'calc' | 'none'], b: [string, 'calc' | 'none']) =>
    defined(
      seeds.map((seed) => {
        const x = levelMean(load(a[0], seed, a[1])?.summary, long);
        const y = levelMean(load(b[0], seed, b[1])?.summary, long);
        return x === undefined || y === undefined ? undefined : x - y;
      }),
    );
  const rows: [string, number[]][] = [
    ['RL with the calculator − cold start (both with it)', diff(['tool', 'calc'], ['cold', 'calc'])],
    ['RL with the calculator (with it) − RL without it (without it)', diff(['tool', 'calc'], ['notool', 'none'])],
    ['RL without it − cold start (both without it)', diff(['notool', 'none'], ['cold', 'none'])],
  ];
  for (const [label, values] of rows) {
    const paired = pairedDifference(values);
    lines.push(
      `- ${label}: ${signed(values)}${paired ? `, 95% CI ±${paired.half.toFixed(3)}, MDE of this design ±${paired.mde.toFixed(3)}` : ''}`,
    );
  }
  return [...lines, ''];
}

console.log(['# Calculator experiment: tables', '', ...arms(), ...pilots()].join('\n'));
