// Which learning curves a run report draws, decided from the metric keys the run logged alone (no config
// reading): a chart appears only when at least one of its metrics exists. Keys follow the fixed names of
// src/training/rl (reward/…, losses/…, entropy, response/…, curriculum/…), src/training/pretrain.ts
// (train/loss) and src/eval/aggregate.ts (eval/pass@<k>/<task>/<difficulty>, eval/pass@<k> overall).
import { compareDifficulty, parseEvalKey } from './eval-keys.ts';

export interface ChartPlan {
  /** File name inside report/, e.g. reward.svg. */
  file: string;
  title: string;
  yLabel: string;
  yDomain?: readonly [number, number];
  yZero?: boolean;
  panels?: boolean;
  /** The curves: legend name and the metric key it is read from. */
  series: { name: string; key: string }[];
}

/** reward/<x> keys that are statistics of the reward rather than reward components. */
const REWARD_STATISTICS = new Set([
  'reward/std',
  'reward/solved_group_frac',
  'reward/kl_penalty',
  'reward/errors',
]);

export function planCharts(keys: readonly string[]): ChartPlan[] {
  const present = new Set(keys);
  const plans: ChartPlan[] = [];
  const add = (plan: ChartPlan) => {
    if (plan.series.length > 0) plans.push(plan);
  };
  const only = (...wanted: string[]) =>
    wanted.filter((key) => present.has(key)).map((key) => ({ name: key, key }));

  const rewardComponents = keys
    .filter((key) => key.startsWith('reward/') && key !== 'reward/mean' && !REWARD_STATISTICS.has(key))
    .sort(naturalOrder);
  add({
    file: 'reward.svg',
    title: 'Training reward (mean and components)',
    yLabel: 'reward',
    series: only('reward/mean', ...rewardComponents),
  });

  add(passAtChart(keys, 1, 'pass-at-1.svg'));
  const largestK = Math.max(1, ...keys.map((key) => parseEvalKey(key)?.k ?? 1));
  if (largestK > 1) add(passAtChart(keys, largestK, 'pass-at-k.svg'));

  add({
    file: 'train-loss.svg',
    title: 'Training loss',
    yLabel: 'cross-entropy',
    series: only('train/loss'),
  });
  add({
    file: 'kl.svg',
    title: 'KL divergence',
    yLabel: 'KL per token',
    yZero: true,
    series: only('losses/approx_kl', 'losses/kl'),
  });
  add({ file: 'entropy.svg', title: 'Policy entropy', yLabel: 'nats per token', series: only('entropy') });
  add({
    file: 'response-length.svg',
    title: 'Response length',
    yLabel: 'tokens',
    series: only('response/length_mean', 'response/length_max'),
  });
  // What the selector made the model practise, whatever the selector (logged by the trainer).
  add({
    file: 'practice-share.svg',
    title: 'What was practised: share of sampled problems per level',
    yLabel: 'share of the batch',
    yDomain: [0, 1],
    series: levelSeries(keys, 'selection/share/'),
  });
  add({
    file: 'practice-reward.svg',
    title: 'Training reward per level (steps where the level was sampled)',
    yLabel: 'mean reward',
    series: levelSeries(keys, 'selection/reward/'),
  });
  for (const plan of curriculumCharts(keys)) add(plan);
  return plans;
}

/** selection/…/<task>/<difficulty> series, named <task>/<difficulty>, levels in numeric order. */
function levelSeries(keys: readonly string[], prefix: string): ChartPlan['series'] {
  return keys
    .filter((key) => key.startsWith(prefix))
    .sort(naturalOrder)
    .map((key) => ({ name: key.slice(prefix.length), key }));
}

/** Held-out pass@k per task and difficulty (difficulties in numeric order) plus the overall rate. */
function passAtChart(keys: readonly string[], k: number, file: string): ChartPlan {
  const groups = keys
    .map((key) => ({ key, parsed: parseEvalKey(key) }))
    .filter(({ parsed }) => parsed?.metric === 'pass' && parsed.k === k && parsed.task !== undefined)
    .sort(
      (a, b) =>
        a.parsed!.task!.localeCompare(b.parsed!.task!) ||
        compareDifficulty(a.parsed!.difficulty!, b.parsed!.difficulty!),
    )
    .map(({ key, parsed }) => ({ name: `${parsed!.task}/${parsed!.difficulty}`, key }));
  const overall = `eval/pass@${k}`;
  if (keys.includes(overall)) groups.push({ name: 'all tasks', key: overall });
  return { file, title: `Held-out pass@${k}`, yLabel: `pass@${k}`, yDomain: [0, 1], series: groups };
}

/**
 * Selector state: curriculum/<arm>/prob in one chart; every other per-arm statistic
 * (curriculum/<arm>/<stat>, e.g. SEC's q or DUMP's ucb) in one chart per statistic; scalar states
 * (curriculum/<name>, e.g. target_difficulty, entropy) as small panels with their own y axes.
 */
function curriculumCharts(keys: readonly string[]): ChartPlan[] {
  const perArm = new Map<string, { name: string; key: string }[]>();
  const scalars: { name: string; key: string }[] = [];
  for (const key of [...keys].sort(naturalOrder)) {
    if (!key.startsWith('curriculum/')) continue;
    const rest = key.slice('curriculum/'.length);
    const slash = rest.lastIndexOf('/');
    if (slash < 0) {
      scalars.push({ name: rest, key });
      continue;
    }
    const statistic = rest.slice(slash + 1);
    if (!perArm.has(statistic)) perArm.set(statistic, []);
    perArm.get(statistic)!.push({ name: rest.slice(0, slash), key });
  }
  const plans: ChartPlan[] = [];
  const probabilities = perArm.get('prob');
  if (probabilities) {
    plans.push({
      file: 'curriculum-probs.svg',
      title: 'Curriculum: selection probability per arm',
      yLabel: 'probability',
      // From 0, not [0, 1]: with many arms every probability is small.
      yZero: true,
      series: probabilities,
    });
  }
  for (const [statistic, series] of [...perArm].sort(([a], [b]) => a.localeCompare(b))) {
    if (statistic === 'prob') continue;
    plans.push({
      file: `curriculum-${fileSafe(statistic)}-per-arm.svg`,
      title: `Curriculum: ${statistic} per arm`,
      yLabel: statistic,
      series,
    });
  }
  if (scalars.length > 0) {
    plans.push({
      file: 'curriculum-state.svg',
      title: 'Curriculum state',
      yLabel: 'value',
      panels: true,
      series: scalars,
    });
  }
  return plans;
}

function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-');
}

/** 'addition:2' before 'addition:10'. */
function naturalOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
