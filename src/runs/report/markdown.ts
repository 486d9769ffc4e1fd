// The Markdown sections of a run report. Each function returns one section (heading included); the
// report is their concatenation (build-report.ts).
import { stringify } from 'yaml';
import type { SampleRecord } from '../run-store.ts';
import { type ChartOutcome, constantLine } from './constant-series.ts';
import { comparisonMarkdown, escapeCell, rate } from './eval-comparison.ts';
import { formatDuration, type RunSummary } from './summary.ts';

const KIND_NAMES = { rl: 'RL fine-tuning', pretrain: 'pretraining / SFT', unknown: 'unknown' } as const;

/** The resolved config, collapsed (GitHub and most viewers render <details> folded), credentials redacted. */
export function configSection(config: unknown): string {
  return [
    '<details>',
    '<summary>Resolved config (config.json)</summary>',
    '',
    fence(stringify(redactSecrets(config ?? {}), { lineWidth: 0 }).trimEnd(), 'yaml'),
    '',
    '</details>',
  ].join('\n');
}

// Reports get shared more widely than run directories: never copy a credential into one.
const SECRET_KEY = /^(api[_-]?key|auth[_-]?token|access[_-]?token|bearer|authorization)$|secret|password/i;

/** A copy of the config with the values of credential-like keys (apiKey, *secret*, …) replaced. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      SECRET_KEY.test(key) && inner !== null && inner !== '' ? '<redacted>' : redactSecrets(inner),
    ]),
  );
}

export function summarySection(summary: RunSummary): string {
  const lines = ['## Summary', ''];
  lines.push(`- **Kind:** ${KIND_NAMES[summary.kind]}`);
  const steps =
    summary.lastStep === null
      ? 'nothing logged yet'
      : summary.configuredSteps !== undefined
        ? `${summary.lastStep} of ${summary.configuredSteps}`
        : String(summary.lastStep);
  const status = summary.finished ? 'finished' : 'not finished (still running, or stopped before the end)';
  lines.push(
    `- **Steps:** ${steps} — ${status}${summary.resumes > 0 ? `, resumed ${summary.resumes}×` : ''}`,
  );
  if (summary.wallSeconds !== undefined) {
    lines.push(
      `- **Wall time:** ${formatDuration(summary.wallSeconds)} (${summary.startedAt} → ${summary.endedAt}${summary.finished ? '' : ', last logged step'})`,
    );
  }
  if (summary.stepSeconds !== undefined) {
    lines.push(
      `- **Time in training steps:** ${formatDuration(summary.stepSeconds)} (sum of perf/step_seconds)`,
    );
  }
  if (summary.evalSteps.length > 0) {
    lines.push(`- **Held-out evaluations at steps:** ${compactList(summary.evalSteps)}`);
  }
  const final = Object.entries(summary.final);
  if (final.length > 0) {
    lines.push('', '| metric | final value | at step |', '| :-- | --: | --: |');
    for (const [key, { step, value }] of final)
      lines.push(`| ${escapeCell(key)} | ${number(value)} | ${step} |`);
  }
  return lines.join('\n');
}

export function comparisonSection(summary: RunSummary): string {
  const comparison = summary.comparison;
  const lines = ['## Before / after (held-out evaluation)', ''];
  if (!comparison) {
    lines.push('_This run logged no held-out evaluation._');
    return lines.join('\n');
  }
  if (comparison.beforeStep === undefined) {
    lines.push('_No evaluation at step 0 (before training) was logged; only the last one is shown._', '');
  } else if (comparison.afterStep === undefined) {
    lines.push('_Only the evaluation before training (step 0) was logged so far._', '');
  }
  lines.push(comparisonMarkdown(comparison));
  return lines.join('\n');
}

export function plotsSection(charts: readonly ChartOutcome[]): string {
  const lines = ['## Learning curves', ''];
  if (charts.length === 0) {
    lines.push('_No metrics to plot._');
    return lines.join('\n');
  }
  for (const { plan, drawn, constant } of charts) {
    const alt = plan.file.replace(/\.svg$/, '');
    lines.push(`### ${plan.title}`, '');
    if (drawn.length > 0) lines.push(`![${alt}](${plan.file})`, '');
    // One line per flat series instead of a flat line (constant-series.ts).
    for (const series of constant) lines.push(`- ${constantLine(series, drawn.length > 0)}`);
    if (constant.length > 0) lines.push('');
  }
  return lines.join('\n').trimEnd();
}

/** Most reasons listed in the report; the run store keeps them all. */
const shownErrorReasons = 20;

/** Completions whose grading failed, by reason (most frequent first); '' when none failed. */
export function rewardErrorsSection(
  rows: readonly { step: number; reason: string; count: number }[],
): string {
  if (rows.length === 0) return '';
  const byReason = new Map<string, { count: number; steps: Set<number> }>();
  for (const row of rows) {
    const entry = byReason.get(row.reason) ?? { count: 0, steps: new Set<number>() };
    entry.count += row.count;
    entry.steps.add(row.step);
    byReason.set(row.reason, entry);
  }
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  const steps = new Set(rows.map((row) => row.step)).size;
  const sorted = [...byReason].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1));
  const lines = [
    '## Reward errors',
    '',
    `${total} completion${total === 1 ? '' : 's'} in ${steps} step${steps === 1 ? '' : 's'} could not be graded and scored 0 (metric reward/errors; every reason is in run.sqlite, table reward_errors).`,
    '',
    '| reason | completions | steps |',
    '| :-- | --: | --: |',
  ];
  for (const [reason, entry] of sorted.slice(0, shownErrorReasons)) {
    lines.push(
      `| ${escapeCell(clip(reason.replace(/\s+/g, ' '), 300))} | ${entry.count} | ${entry.steps.size} |`,
    );
  }
  if (sorted.length > shownErrorReasons) {
    lines.push('', `… and ${sorted.length - shownErrorReasons} more reasons.`);
  }
  return lines.join('\n');
}

export function samplesSection(
  step: number | null,
  samples: readonly SampleRecord[],
  options: { count: number; maxChars: number },
): string {
  const lines = [`## Sample completions${step === null ? '' : ` (step ${step})`}`, ''];
  if (samples.length === 0) {
    lines.push('_No completions were logged at the last step._');
    return lines.join('\n');
  }
  const shown = samples.slice(0, options.count);
  lines.push(`${shown.length} of the ${samples.length} completions logged at this step.`, '');
  shown.forEach((sample, index) => {
    const reason = sample.reason ? ` — ${sample.reason.replace(/\s+/g, ' ')}` : '';
    lines.push(
      `### ${index + 1}. \`${sample.problemId}\` — reward ${rate(sample.reward ?? undefined)}${reason}`,
      '',
      'Prompt:',
      '',
      fence(clip(sample.prompt ?? '', options.maxChars), 'text'),
      '',
      'Completion:',
      '',
      fence(clip(sample.completion ?? '', options.maxChars), 'text'),
      '',
    );
  });
  return lines.join('\n').trimEnd();
}

/** A fenced block whose fence is longer than any backtick run inside the text. */
export function fence(text: string, language: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const marker = '`'.repeat(Math.max(3, longest + 1));
  return `${marker}${language}\n${text}\n${marker}`;
}

/** Trailing newlines dropped; text past maxChars replaced by a note of how much was cut. */
function clip(text: string, maxChars: number): string {
  const trimmed = text.replace(/\n+$/, '');
  return trimmed.length <= maxChars
    ? trimmed
    : `${trimmed.slice(0, maxChars)}… (${trimmed.length - maxChars} more characters)`;
}

/** Four decimals; four significant digits for very large or very small magnitudes. */
function number(value: number): string {
  const magnitude = Math.abs(value);
  return magnitude >= 1e4 || (magnitude > 0 && magnitude < 1e-3) ? value.toPrecision(4) : value.toFixed(4);
}

/** [0, 10, 20, 30] → '0, 10, 20, 30'; long lists keep their ends: '0, 10, 20, …, 480, 490, 500 (51 in all)'. */
function compactList(steps: readonly number[]): string {
  if (steps.length <= 12) return steps.join(', ');
  return `${steps.slice(0, 3).join(', ')}, …, ${steps.slice(-3).join(', ')} (${steps.length} in all)`;
}
