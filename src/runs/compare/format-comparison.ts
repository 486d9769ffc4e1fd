// The Markdown of `curricula compare`: final held-out rates per level, steps to the baseline's final
// value, what each group practised, and what it cost — every number as mean ± sd over seeds.
import { compareDifficulty, parseEvalKey } from '../report/eval-keys.ts';
import type { Comparison, GroupComparison, Spread } from './compare-runs.ts';

export interface FormatOptions {
  /** Config keys the groups differ in (for the heading). */
  groupedBy: readonly string[];
  /** Relative paths of the SVG plots to embed. */
  plots?: readonly { title: string; path: string }[];
}

export function formatComparison(comparison: Comparison, options: FormatOptions): string {
  const { groups } = comparison;
  const lines = [
    ...heading(comparison, options.groupedBy),
    ...passKs(comparison.keys).flatMap((k) => [
      '',
      `## Final held-out pass@${k}`,
      '',
      ...finalTable(comparison, k),
    ]),
    ...stepsToTarget(comparison),
    ...practised(groups),
    ...cost(groups),
    ...(options.plots ?? []).flatMap((plot) => [
      '',
      `## ${plot.title}`,
      '',
      `![${plot.title}](${plot.path})`,
    ]),
    '',
    `Runs: ${groups.map((group) => `${group.group}: ${group.runs.join(', ')}`).join('; ')}.`,
    '',
  ];
  return lines.join('\n');
}

/** The title, what the numbers are, and a warning for each group whose runs end at different steps. */
function heading(comparison: Comparison, groupedBy: readonly string[]): string[] {
  const { groups } = comparison;
  const runCount = groups.reduce((sum, group) => sum + group.runs.length, 0);
  const by = groupedBy.length > 0 ? ` by ${groupedBy.map((key) => `\`${key}\``).join(', ')}` : '';
  const lines = [
    `# Comparison: ${runCount} runs in ${groups.length} groups${by}`,
    '',
    'Every value is the mean ± sample sd over the runs of a group (seeds); n is the number of runs.',
  ];
  const unfinished = groups.filter((group) => new Set(group.lastSteps).size > 1);
  for (const group of unfinished) {
    lines.push(
      '',
      `**Warning**: the runs of ${group.group} end at different steps (${group.lastSteps.join(', ')}).`,
    );
  }
  return lines;
}

/** Steps to the target (the baseline's mean final headline, or the given one), with the speed-up; none without a target. */
function stepsToTarget(comparison: Comparison): string[] {
  const { groups, baseline, target, headline } = comparison;
  if (target === null) return [];
  const source = baseline === null ? 'the given target' : `${baseline}'s mean final ${short(headline)}`;
  const lines = [
    '',
    `## Steps to reach ${source} (${target.toFixed(3)})`,
    '',
    'First evaluated step at which the mean curve over seeds reaches the target, and the same for each',
    'run (— = not reached). Evaluations are every few steps, so a step here is an upper bound; on noisy',
    'curves the first crossing can come early and by chance. The area under the curve (the mean of the',
    'evaluations after step 0) is the steadier summary of how fast a group improved.',
    '',
    `| group | mean curve | per run | speed-up vs ${baseline ?? 'target'} | area under the curve |`,
    '|---|---|---|---|---|',
  ];
  const reference = groups.find((group) => group.group === baseline)?.stepsToTarget ?? null;
  for (const group of groups) {
    const perRun = group.runStepsToTarget.map((step) => (step === null ? '—' : String(step))).join(', ');
    const speedup =
      reference !== null && group.stepsToTarget !== null && group.stepsToTarget > 0
        ? `${(reference / group.stepsToTarget).toFixed(2)}×`
        : '—';
    lines.push(
      `| ${group.group} | ${group.stepsToTarget ?? '—'} | ${perRun} | ${speedup} | ${cell(group.auc)} |`,
    );
  }
  return lines;
}

/** The share of sampled problems per level and group; none when no run recorded selection shares. */
function practised(groups: readonly GroupComparison[]): string[] {
  const keys = [...new Set(groups.flatMap((group) => Object.keys(group.means)))].sort(compareLevelKeys);
  if (keys.length === 0) return [];
  return [
    '',
    '## What was practised',
    '',
    'Share of the sampled problems at each level, averaged over the training steps.',
    '',
    `| group | ${keys.map((key) => key.replace('selection/share/', '')).join(' | ')} |`,
    `|---|${keys.map(() => '---').join('|')}|`,
    ...groups.map(
      (group) => `| ${group.group} | ${keys.map((key) => cell(group.means[key], 2)).join(' | ')} |`,
    ),
  ];
}

/** The summed cost metrics per group; none when no run recorded any. */
function cost(groups: readonly GroupComparison[]): string[] {
  const sums = [...new Set(groups.flatMap((group) => Object.keys(group.sums)))];
  if (sums.length === 0) return [];
  return [
    '',
    '## Cost',
    '',
    `| group | ${sums.map(sumLabel).join(' | ')} |`,
    `|---|${sums.map(() => '---').join('|')}|`,
    ...groups.map(
      (group) => `| ${group.group} | ${sums.map((key) => cell(group.sums[key], 0)).join(' | ')} |`,
    ),
  ];
}

function finalTable(comparison: Comparison, k: number): string[] {
  const levelKeys = comparison.keys
    .filter((key) => {
      const parsed = parseEvalKey(key);
      return parsed?.metric === 'pass' && parsed.k === k && parsed.task !== undefined;
    })
    .sort(compareLevelKeys);
  const overall = `eval/pass@${k}`;
  const paired = k === 1 && comparison.headline === overall && comparison.baseline !== null;
  const header = [
    'group',
    'n',
    ...levelKeys.map((key) => {
      const parsed = parseEvalKey(key)!;
      return `${parsed.task} ${parsed.difficulty}`;
    }),
    'overall',
    ...(paired ? [`Δ overall vs ${comparison.baseline} (paired by seed)`] : []),
  ];
  const rows = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const group of comparison.groups) {
    const n = Math.max(0, ...Object.values(group.final).map((spread) => spread.n));
    const cells = [
      group.group,
      String(n),
      ...levelKeys.map((key) => cell(group.final[key])),
      cell(group.final[overall]),
    ];
    if (paired) cells.push(group.pairedDelta ? signed(group.pairedDelta) : '—');
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return rows;
}

function passKs(keys: readonly string[]): number[] {
  const ks = new Set<number>();
  for (const key of keys) {
    const parsed = parseEvalKey(key);
    if (parsed?.metric === 'pass') ks.add(parsed.k);
  }
  const sorted = [...ks].sort((a, b) => a - b);
  // pass@1 and the largest k: the intermediate ones add columns, not information.
  return sorted.length <= 2 ? sorted : [sorted[0], sorted[sorted.length - 1]];
}

function compareLevelKeys(a: string, b: string): number {
  const [taskA, levelA] = splitLevel(a);
  const [taskB, levelB] = splitLevel(b);
  return taskA === taskB ? compareDifficulty(levelA, levelB) : taskA.localeCompare(taskB);
}

function splitLevel(key: string): [string, string] {
  const slash = key.lastIndexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

function cell(spread: Spread | undefined, digits = 3): string {
  if (spread === undefined) return '—';
  return spread.n > 1
    ? `${spread.mean.toFixed(digits)} ± ${spread.sd.toFixed(digits)}`
    : spread.mean.toFixed(digits);
}

function signed(spread: Spread): string {
  const sign = spread.mean >= 0 ? '+' : '−';
  const body = `${sign}${Math.abs(spread.mean).toFixed(3)}`;
  return spread.n > 1 ? `${body} ± ${spread.sd.toFixed(3)} (n ${spread.n})` : body;
}

function short(key: string): string {
  return key.replace(/^eval\//, 'held-out ');
}

function sumLabel(key: string): string {
  if (key === 'losses/tokens') return 'trained completion tokens';
  if (key === 'perf/step_seconds') return 'training seconds (steps only)';
  return `Σ ${key}`;
}
