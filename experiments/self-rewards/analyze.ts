// Tables for the self-rewards experiment (run.sh here, issue 16 item 5(a)): per setting, over seeds,
// - held-out pass@1 per level (gold verifier) before RL (step 0) and after 300 steps, mean ± sd, and the
//   seed-paired difference of the mean over levels against the gold `verifier` run;
// - the failure mode the papers warn about: how often the self-reward's verdict agrees with the gold one,
//   and how often it passes a wrong completion (reward/confident_wrong), first 50 steps → last 50 steps;
//   for majority-vote, how often the majority answer is right (reward/label_accuracy); the training reward
//   and the gold accuracy of the sampled completions (reward/gold_correct or reward/correct);
// - calibration: the Brier score of self-confidence's confidence against the gold verdict;
// - power (issue 28 item 2): the minimum detectable effect (experiments/lib/mde.ts) on the mean over levels
//   1-8 of held-out pass@1 after RL, from the seed spread within the settings that did not collapse
//   (verifier, majority-vote: the comparison of the TTRL finding), and within every setting with a seed
//   spread (self-confidence, 0 on every seed, has none; self-confidence-eos collapsed on one seed of three).
//   node --import tsx experiments/self-rewards/analyze.ts > experiments/self-rewards/results/tables.md
import { join } from 'node:path';
import {
  defined,
  fmt,
  levelMean,
  levelTable,
  passAt1,
  type Row,
  readJson,
  readMetrics,
  type Summary,
  signed,
  spanMean,
  type TrainJson,
} from '../lib/analysis.ts';
import { mdeLine } from '../lib/mde.ts';

const here = 'experiments/self-rewards';
const runsDir = 'runs/self-rewards';
const seeds = [1, 2, 3];
const levels = [1, 2, 3, 4, 5, 6, 7, 8];
const settings = [
  'verifier',
  'majority-vote',
  'self-confidence',
  'self-confidence-eos',
  'self-consistency',
  'self-reference',
];

const result = (setting: string, seed: number) =>
  readJson<TrainJson>(join(here, 'raw', `${setting}-s${seed}`, 'result.json')) ??
  readJson<TrainJson>(join(runsDir, `${setting}-s${seed}`, 'result.json'));
const metrics = (setting: string, seed: number): Row[] =>
  readMetrics([
    join(here, 'raw', `${setting}-s${seed}`, 'metrics.jsonl.gz'),
    join(runsDir, `${setting}-s${seed}`, 'metrics.jsonl'),
  ]) ?? [];
const finished = (setting: string) =>
  seeds.flatMap((seed) => {
    const run = result(setting, seed);
    return run ? [{ seed, run }] : [];
  });
const table = (title: string, pick: (run: TrainJson) => Summary | undefined) =>
  levelTable(
    title,
    levels,
    settings.map((setting) => [setting, finished(setting).flatMap(({ run }) => pick(run) ?? [])]),
  );

function pairedTable(): string[] {
  const lines = ['| setting | Δ vs verifier after RL | Δ vs its own step 0 |', '|---|---|---|'];
  for (const setting of settings) {
    const vsGold = defined(
      seeds.map((seed) => {
        const [ours, gold] = [result(setting, seed), result('verifier', seed)];
        const [a, b] = [levelMean(ours?.finalEval, levels), levelMean(gold?.finalEval, levels)];
        return a !== undefined && b !== undefined ? a - b : undefined;
      }),
    );
    const vsStart = defined(
      finished(setting).map(({ run }) => {
        const [a, b] = [levelMean(run.finalEval, levels), levelMean(run.initialEval, levels)];
        return a !== undefined && b !== undefined ? a - b : undefined;
      }),
    );
    lines.push(`| ${setting} | ${setting === 'verifier' ? '—' : signed(vsGold)} | ${signed(vsStart)} |`);
  }
  return [...lines, ''];
}

function failureTable(): string[] {
  const keys = [
    'reward/mean',
    'reward/gold_correct',
    'reward/correct',
    'reward/self_gold_agreement',
    'reward/confident_wrong',
    'reward/label_accuracy',
    'reward/answered',
    'reward/confidence',
    'reward/confidence_brier',
  ];
  const lines = [
    '### Training signal and failure mode (per step; mean of steps 1-50 → mean of the last 50 steps)',
    '',
    `| setting | seeds | ${keys.join(' | ')} |`,
    `|---|---|${keys.map(() => '---|').join('')}`,
  ];
  for (const setting of settings) {
    const runs = finished(setting).map(({ seed }) => metrics(setting, seed));
    const cells = keys.map((key) => {
      const first = defined(runs.map((rows) => spanMean(rows, key, 0, 50)));
      const last = defined(runs.map((rows) => spanMean(rows, key, -50)));
      return first.length === 0 ? '—' : `${fmt(first)} → ${fmt(last)}`;
    });
    lines.push(`| ${setting} | ${runs.length} | ${cells.join(' | ')} |`);
  }
  return [...lines, ''];
}

/** `curricula eval --json` output: the summary sits under `summary`. */
interface EvalJson {
  summary: Summary & { metrics: Record<string, number> };
}

function calibrationTable(): string[] {
  const keys = [
    ['eval/pass@1', 'pass@1'],
    ['eval/pass@4', 'pass@4'],
    ['eval/consistency/confidence', 'mean confidence'],
    ['eval/consistency/brier', 'Brier'],
    ['eval/consistency/ece', 'ECE'],
    ['eval/consistency/confident_wrong', 'confident wrong'],
  ] as const;
  const evaluation = (name: string) => readJson<EvalJson>(join(here, 'results', `eval-${name}.json`))?.summary;
  const lines = [
    '### Held-out agreement calibration of the final checkpoints (levels 1-8, 100 problems each, 4 samples at T = 1, eval seed 1)',
    '',
    'Confidence: the share of the 4 samples that give the majority answer; outcome: the majority is right;',
    'confident wrong: a wrong majority held by at least 3 of the 4 samples (share of problems).',
    '',
    `| model | seeds | ${keys.map(([, label]) => label).join(' | ')} |`,
    `|---|---|${keys.map(() => '---|').join('')}`,
  ];
  const cold = evaluation('cold');
  if (cold) lines.push(`| cold start (ladder-cold) | 1 | ${keys.map(([key]) => fmt([cold.metrics[key]], 3)).join(' | ')} |`);
  for (const setting of settings) {
    const runs = seeds.map((seed) => evaluation(`${setting}-s${seed}`)).filter((run) => run !== undefined);
    if (runs.length === 0) continue;
    lines.push(
      `| ${setting} | ${runs.length} | ${keys.map(([key]) => fmt(defined(runs.map((run) => run.metrics[key])), 3)).join(' | ')} |`,
    );
  }
  return [...lines, ''];
}

function powerSection(): string[] {
  const arms = (names: readonly string[]) =>
    Object.fromEntries(
      names.map((setting) => [
        setting,
        defined(finished(setting).map(({ run }) => levelMean(run.finalEval, levels))),
      ]),
    );
  const metric = 'the mean over levels 1-8 of held-out pass@1 after RL';
  const spread = ['verifier', 'majority-vote', 'self-confidence-eos', 'self-consistency'];
  return [
    '### Power',
    '',
    `Arms verifier and majority-vote (the settings that did not collapse): ${mdeLine(metric, arms(spread.slice(0, 2)))}`,
    '',
    `Every setting with a seed spread (${spread.join(', ')}; not self-confidence, 0 on every seed): ${mdeLine(metric, arms(spread))}`,
    '',
  ];
}

const out = [
  '# Self-rewards vs the gold verifier: tables (generated by analyze.ts; do not edit)',
  '',
  ...table('Held-out pass@1 per level (gold verifier), step 0', (run) => run.initialEval),
  ...table('Held-out pass@1 per level (gold verifier), after 300 steps', (run) => run.finalEval),
  '### Seed-paired difference of the mean over levels 1-8 of held-out pass@1',
  '',
  ...pairedTable(),
  ...failureTable(),
  ...calibrationTable(),
  ...powerSection(),
];
process.stdout.write(`${out.join('\n')}\n`);
