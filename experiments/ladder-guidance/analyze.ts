// Tables for the guidance experiment (run.sh here, issue 13 §3.1): per setting, over seeds,
// - the share of the seed's zero-success pool problems (the cold start solved none of 16 samples) that the
//   trained model solves UNGUIDED (≥ 1 of 16 samples, plain prompts), overall and per level;
// - held-out pass@1 and pass@8 per level (8 samples on 50 problems per level, plain prompts);
// - sampled tokens of the whole run (response/length_mean × sampling/groups × 8 per step, as the
//   curricula experiment counts them) and the guided share of attempts (guidance/guided_frac).
// The cold start is evaluated once per seed on the same held-out problems with the same sampling seed
// (seed 11), so its three held-out rows are the same run (sd 0).
// Power (issue 28 item 2): the minimum detectable effect (experiments/lib/mde.ts) on the final overall
// held-out pass@1, on the 6-digit held-out pass@1 and on the share of the zero-success problems solved
// unguided, from the seed spread within the trained settings; the cold start (one evaluation, sd 0 by
// construction) and privileged-hint (collapsed to 0 on every seed: no seed spread to measure) are left out
// of the pool, as they would shrink it without measuring any seed noise.
//   node --import tsx experiments/ladder-guidance/analyze.ts [settings] > experiments/ladder-guidance/results/tables.md
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, mean, type Row, readJson, readMetrics, sd } from '../lib/analysis.ts';
import { mdeLine } from '../lib/mde.ts';

const here = 'experiments/ladder-guidance';
const levels = [1, 2, 3, 4, 5, 6, 7, 8];
const groupSize = 8;

interface EvalJson {
  summary: { groups: { difficulty: number; problems: number; passAt: Record<string, number> }[] };
  perProblem?: { id: string; difficulty: number; correct: number }[];
}

/** metrics.jsonl of a run: raw/<name>/metrics.jsonl.gz (committed), else the run directory. */
function metricsOf(setting: string, seed: number): Row[] | undefined {
  const name = `${setting}-s${seed}`;
  return readMetrics([
    join(here, 'raw', name, 'metrics.jsonl.gz'),
    join('runs/ladder-guidance', name, 'metrics.jsonl'),
    ...(setting === 'grpo' ? [`experiments/ladder-curricula/raw/uniform-s${seed}/metrics.jsonl.gz`] : []),
  ]);
}

const num = (row: Row, key: string) => (typeof row[key] === 'number' ? (row[key] as number) : undefined);

/** The share of a run's zero-success problems it solves unguided (undefined when not evaluated). */
function solvedShare(setting: string, seed: number): number | undefined {
  const zero = readJson<EvalJson>(join(here, 'results', `${setting}-s${seed}.zero.json`));
  if (!zero?.perProblem) return undefined;
  return zero.perProblem.filter((p) => p.correct > 0).length / zero.perProblem.length;
}

const settings = (process.argv[2] ?? 'cold,grpo,hints,oracle-prefix,off-policy-prefix').split(',');
const seeds = [1, 2, 3];
const lines: string[] = [];

const zeroSets = seeds.map((seed) => readJson<EvalJson>(join(here, 'results', `cold-pool-s${seed}.json`)));
const zeroCounts = zeroSets.map((set) =>
  set ? levels.map((level) => set.perProblem!.filter((p) => p.difficulty === level && p.correct === 0).length) : [],
);
lines.push(
  'Zero-success pool problems per seed (the cold start solved 0 of 16), by level (digits) 1-8:',
  ...seeds.map((seed, i) => `- seed ${seed}: ${zeroCounts[i].join(' / ') || 'not evaluated'}`),
  '',
  `| setting | seeds | zero-success problems solved unguided (share) | seed-paired Δ vs grpo | of them at 6 / 7 / 8 digits | held-out pass@1, 5 / 6 / 7 / 8 digits | held-out pass@8, 5 / 6 / 7 / 8 digits | sampled tokens (M) | guided share of attempts |`,
  '|---|---|---|---|---|---|---|---|---|',
);
for (const setting of settings) {
  const done = seeds.filter((seed) =>
    existsSync(join(here, 'results', setting === 'cold' ? `cold-s${seed}.heldout.json` : `${setting}-s${seed}.heldout.json`)),
  );
  if (done.length === 0) continue;
  const solved: number[] = [];
  const solvedAt: number[][] = [[], [], []];
  const pass1: number[][] = [[], [], [], []];
  const pass8: number[][] = [[], [], [], []];
  const tokens: number[] = [];
  const guided: number[] = [];
  for (const seed of done) {
    const heldOut = readJson<EvalJson>(
      join(here, 'results', setting === 'cold' ? `cold-s${seed}.heldout.json` : `${setting}-s${seed}.heldout.json`),
    )!;
    [5, 6, 7, 8].forEach((level, i) => {
      const group = heldOut.summary.groups.find((entry) => entry.difficulty === level);
      if (group) {
        pass1[i].push(group.passAt['1']);
        pass8[i].push(group.passAt['8']);
      }
    });
    if (setting === 'cold') continue;
    const zero = readJson<EvalJson>(join(here, 'results', `${setting}-s${seed}.zero.json`));
    if (zero?.perProblem) {
      solved.push(zero.perProblem.filter((p) => p.correct > 0).length / zero.perProblem.length);
      [6, 7, 8].forEach((level, i) => {
        const rows = zero.perProblem!.filter((p) => p.difficulty === level);
        if (rows.length > 0) solvedAt[i].push(rows.filter((p) => p.correct > 0).length / rows.length);
      });
    }
    const rows = metricsOf(setting, seed);
    if (rows) {
      let total = 0;
      const shares: number[] = [];
      for (const row of rows) {
        const length = num(row, 'response/length_mean');
        const groups = num(row, 'sampling/groups');
        if (length !== undefined && groups !== undefined) total += length * groups * groupSize;
        const share = num(row, 'guidance/guided_frac');
        if (share !== undefined) shares.push(share);
      }
      tokens.push(total / 1e6);
      if (shares.length > 0) guided.push(mean(shares));
    }
  }
  lines.push(
    `| ${setting} | ${done.join(',')} | ${setting === 'cold' ? '0 (by definition)' : `${fmt(solved, 3)} (${solved.map((value) => value.toFixed(3)).join(' / ')})`} | ${pairedDelta(setting, done)} | ${solvedAt.map((values) => fmt(values)).join(' / ')} | ${pass1.map((values) => fmt(values)).join(' / ')} | ${pass8.map((values) => fmt(values)).join(' / ')} | ${fmt(tokens)} | ${fmt(guided)} |`,
  );
}

/** Held-out evaluation of a trained setting's seed (undefined when not evaluated). */
const heldOutOf = (setting: string, seed: number) =>
  readJson<EvalJson & { summary: { metrics: Record<string, number> } }>(
    join(here, 'results', `${setting}-s${seed}.heldout.json`),
  )?.summary;
const powerArms = settings.filter((setting) => setting !== 'cold' && setting !== 'privileged-hint');
/** setting → value(setting, seed) over the seeds where it is defined. */
const arms = (value: (setting: string, seed: number) => number | undefined) =>
  Object.fromEntries(
    powerArms.map((setting) => [
      setting,
      seeds.map((seed) => value(setting, seed)).filter((entry): entry is number => entry !== undefined),
    ]),
  );
lines.push(
  '',
  '### Power',
  '',
  `Arms: ${powerArms.join(', ')} (not the cold start, one evaluation; not privileged-hint, 0 on every seed).`,
  '',
  mdeLine(
    'final overall held-out pass@1',
    arms((setting, seed) => heldOutOf(setting, seed)?.metrics['eval/pass@1']),
  ),
  '',
  mdeLine(
    'final 6-digit held-out pass@1',
    arms((setting, seed) => heldOutOf(setting, seed)?.groups.find((group) => group.difficulty === 6)?.passAt['1']),
  ),
  '',
  mdeLine('the share of the zero-success problems solved unguided', arms(solvedShare)),
);
console.log(lines.join('\n'));

/** Per seed, this setting's solved share minus grpo's on the same seed (and their mean ± sd). */
function pairedDelta(setting: string, seedsDone: number[]): string {
  if (setting === 'cold' || setting === 'grpo') return '—';
  const deltas = seedsDone.flatMap((seed) => {
    const own = solvedShare(setting, seed);
    const base = solvedShare('grpo', seed);
    return own === undefined || base === undefined ? [] : [own - base];
  });
  return deltas.length === 0 ? '—' : `${fmt(deltas, 3)} (${deltas.map((d) => `${d >= 0 ? '+' : ''}${d.toFixed(3)}`).join(' / ')})`;
}
