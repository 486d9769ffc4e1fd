// Tables for the ladder experiments (README.md here): per setting, over seeds, the final held-out pass@1
// (overall and per level), its paired difference from uniform on the same seed, and the steps, sampled
// tokens and seconds each run took to reach uniform's final pass@1 of the same seed. `curricula compare`
// gives curves and the same finals; this adds the sampled-token and wall-time axes the issue asks for
// (dynamic sampling and VCRL's filter sample more than they train).
//
//   node --import tsx experiments/ladder-curricula/analyze.ts [runsDir] > experiments/ladder-curricula/results/tables.md
//
// Sampled tokens per step = response/length_mean (over every sampled completion) × sampling/groups × 8:
// every setting samples 8 completions per group on average (the adaptive budget varies group sizes under
// the same total). Seconds = Σ perf/step_seconds (training steps only, not evaluations); runs shared the
// 2 cores two at a time, so seconds compare only roughly.
//
// Power (issue 28 item 2): the minimum detectable effect of the design on the final overall held-out pass@1
// and on the final 6-digit pass@1 (the edge level the DAPO finding is about), from the seed spread within the
// settings of at least two seeds (experiments/lib/mde.ts).
//
// runsDir holds <setting>-s<seed>/ with result.json and metrics.jsonl, or metrics.jsonl.gz as in the
// committed raw/ (`experiments/ladder-curricula/raw` can be passed as it is; the first line then names it).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Row, readMetrics } from '../lib/analysis.ts';
import { mdeLine } from '../lib/mde.ts';
interface Run {
  setting: string;
  seed: number;
  rows: Row[];
  /** Derived once from rows: the eval points with cumulative tokens and seconds (trajectory()). */
  path: ReturnType<typeof trajectory>;
}

const runsDir = process.argv[2] ?? 'runs/ladder';
const groupSize = 8;

function readRuns(): Run[] {
  const runs: Run[] = [];
  for (const name of readdirSync(runsDir).sort()) {
    const match = /^(.+)-s(\d+)$/.exec(name);
    if (!match) continue;
    // A run without result.json is unfinished.
    if (!existsSync(join(runsDir, name, 'result.json'))) continue;
    const rows =
      readMetrics([join(runsDir, name, 'metrics.jsonl'), join(runsDir, name, 'metrics.jsonl.gz')]) ?? [];
    runs.push({ setting: match[1], seed: Number(match[2]), rows, path: trajectory(rows) });
  }
  return runs;
}

const num = (row: Row, key: string) => (typeof row[key] === 'number' ? (row[key] as number) : undefined);

/** Per eval row: step, pass@1, cumulative sampled tokens and seconds up to that step. */
function trajectory(rows: readonly Row[]) {
  let tokens = 0;
  let seconds = 0;
  const points: { step: number; pass: number; tokens: number; seconds: number }[] = [];
  for (const row of rows) {
    const length = num(row, 'response/length_mean');
    const groups = num(row, 'sampling/groups');
    if (length !== undefined && groups !== undefined) tokens += length * groups * groupSize;
    seconds += num(row, 'perf/step_seconds') ?? 0;
    const pass = num(row, 'eval/pass@1');
    if (pass !== undefined) points.push({ step: row.step as number, pass, tokens, seconds });
  }
  return { points, tokens, seconds };
}

function finalEval(run: Run): Row {
  return [...run.rows].reverse().find((row) => num(row, 'eval/pass@1') !== undefined)!;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const sd = (values: number[]) =>
  values.length < 2
    ? 0
    : Math.sqrt(values.reduce((sum, value) => sum + (value - mean(values)) ** 2, 0) / (values.length - 1));
const fmt = (values: number[], digits = 3) =>
  values.length === 0
    ? '—'
    : values.length === 1
      ? values[0].toFixed(digits)
      : `${mean(values).toFixed(digits)} ± ${sd(values).toFixed(digits)}`;

function main(): void {
  const runs = readRuns();
  const settings = [...new Set(runs.map((run) => run.setting))];
  const uniform = new Map(runs.filter((run) => run.setting === 'uniform').map((run) => [run.seed, run]));
  const levels = [1, 2, 3, 4, 5, 6, 7, 8];
  const lines: string[] = [];
  lines.push(
    `Finished runs in ${runsDir}: ${runs.length} (${settings.map((setting) => `${setting} ×${runs.filter((run) => run.setting === setting).length}`).join(', ')}). Mean ± sd over seeds; Δ paired with uniform on the same seed.`,
    '',
    '| setting | seeds | final pass@1 | Δ vs uniform | steps to uniform final (per seed) | sampled tokens at that point / uniform final tokens | sampled tokens, whole run (M) | train seconds, whole run |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const setting of settings) {
    const own = runs.filter((run) => run.setting === setting);
    const finals = own.map((run) => num(finalEval(run), 'eval/pass@1')!);
    const deltas: number[] = [];
    const reached: string[] = [];
    const tokenRatios: number[] = [];
    for (const run of own) {
      const base = uniform.get(run.seed);
      if (!base) {
        reached.push('no uniform');
        continue;
      }
      const target = num(finalEval(base), 'eval/pass@1')!;
      deltas.push(num(finalEval(run), 'eval/pass@1')! - target);
      const hit = run.path.points.find((point) => point.pass >= target);
      reached.push(hit ? String(hit.step) : 'never');
      if (hit) tokenRatios.push(hit.tokens / base.path.tokens);
    }
    const totals = own.map((run) => run.path);
    lines.push(
      `| ${setting} | ${own.map((run) => run.seed).join(',')} | ${fmt(finals)} | ${setting === 'uniform' ? '—' : fmt(deltas)} | ${reached.join(' / ')} | ${fmt(tokenRatios, 2)} | ${fmt(
        totals.map((total) => total.tokens / 1e6),
        2,
      )} | ${fmt(
        totals.map((total) => total.seconds),
        0,
      )} |`,
    );
  }
  /** A settings × levels table of `value(run, level)`, mean ± sd over each setting's runs. */
  const levelTable = (title: string, value: (run: Run, level: number) => number | undefined) => {
    lines.push('', title, '', `| setting | ${levels.join(' | ')} |`, `|---|${levels.map(() => '---').join('|')}|`);
    for (const setting of settings) {
      const own = runs.filter((run) => run.setting === setting);
      const cells = levels.map((level) =>
        fmt(
          own.map((run) => value(run, level)).filter((entry): entry is number => entry !== undefined),
          2,
        ),
      );
      lines.push(`| ${setting} | ${cells.join(' | ')} |`);
    }
  };
  levelTable('Final held-out pass@1 per level (digits):', (run, level) =>
    num(finalEval(run), `eval/pass@1/addition/${level}`),
  );
  levelTable(
    'Share of the practised problems per level (digits), mean over steps (selection/share/addition/<level>; a level not drawn in a step counts 0):',
    (run, level) => {
      const steps = run.rows.filter((row) => num(row, 'perf/step_seconds') !== undefined);
      return mean(steps.map((row) => num(row, `selection/share/addition/${level}`) ?? 0));
    },
  );
  const first = runs[0] && runs[0].rows.find((row) => num(row, 'eval/pass@1') !== undefined);
  if (first) {
    lines.push(
      '',
      `Before RL (step 0 of each run, same held-out problems per seed), pass@1 per level, mean over the finished runs: ${levels
        .map((level) =>
          mean(runs.map((run) => num(run.rows.find((row) => num(row, 'eval/pass@1') !== undefined)!, `eval/pass@1/addition/${level}`)!)).toFixed(2),
        )
        .join(' / ')}.`,
    );
  }
  /** setting → the final value of `key` of each of its runs (one per seed). */
  const finals = (key: string) =>
    Object.fromEntries(
      settings.map((setting) => [
        setting,
        runs.filter((run) => run.setting === setting).map((run) => num(finalEval(run), key)!),
      ]),
    );
  lines.push(
    '',
    '### Power',
    '',
    mdeLine('final overall held-out pass@1', finals('eval/pass@1')),
    '',
    mdeLine('final 6-digit held-out pass@1', finals('eval/pass@1/addition/6')),
  );
  console.log(lines.join('\n'));
}

main();
