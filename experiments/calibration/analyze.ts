// Issue 28 claim (vi) (README.md): reads raw/ and prints the tables the README quotes.
//   node --import tsx experiments/calibration/analyze.ts > experiments/calibration/results/tables.md
// Arms (rl.yaml, run.sh): verifier (GRPO on correctness; the stated confidence is not rewarded),
// calibration (RLCR's reward, format answer-line), lr0 (the verifier arm at learning rate 0: the cold start
// evaluated again, the no-update control). One RL seed per cold start (pretraining seeds 2, 3, 4), so arms
// are compared paired by cold start (95% t-interval of the mean difference, and that design's MDE).
// Per evaluation (held-out, 100 problems × 4 samples per level 1-9, T = 1): pass@1 and, over the
// completions that state a confidence, Brier, ECE (10 bins), AUROC, mean confidence and the share stating.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, mean, type Row, readJson, readMetrics } from '../lib/analysis.ts';
import { pairedCells, pairedDifferences } from '../lib/mde.ts';

const raw = join(import.meta.dirname, process.argv[2] ?? 'raw');
const arms = ['verifier', 'calibration', 'lr0'] as const;
type Arm = (typeof arms)[number];
const colds = [2, 3, 4] as const;
const metricsFile = (arm: Arm, cold: number) => join(raw, `${arm}-c${cold}`, 'metrics.jsonl.gz');
const runs = (arm: Arm) => colds.filter((cold) => existsSync(metricsFile(arm, cold)));

const measures = [
  ['eval/pass@1', 'pass@1'],
  ['eval/calibration/brier', 'Brier ↓'],
  ['eval/calibration/ece', 'ECE ↓'],
  ['eval/calibration/auroc', 'AUROC ↑'],
  ['eval/calibration/confidence', 'mean confidence'],
  ['eval/calibration/accuracy', 'accuracy (stating)'],
  ['eval/calibration/stated', 'share stating'],
] as const;

/** The evaluation rows of a run, by step. */
function evaluations(arm: Arm, cold: number): Map<number, Row> {
  const rows = readMetrics([metricsFile(arm, cold)]) ?? [];
  return new Map(
    rows.filter((row) => typeof row['eval/pass@1'] === 'number').map((row) => [row.step as number, row]),
  );
}

const value = (row: Row | undefined, key: string) => (typeof row?.[key] === 'number' ? (row[key] as number) : undefined);
const lastStep = (evals: Map<number, Row>) => Math.max(...evals.keys());

const lines: string[] = ['# Calibration on the ladder: tables', ''];

// 1. Every evaluation of every run.
lines.push('## Every evaluation', '');
lines.push(`| arm | cold start | step | ${measures.map(([, label]) => label).join(' | ')} |`);
lines.push(`|---|---|---|${measures.map(() => '---|').join('')}`);
for (const arm of arms) {
  for (const cold of runs(arm)) {
    for (const [step, row] of evaluations(arm, cold)) {
      const cells = measures.map(([key]) => value(row, key)?.toFixed(3) ?? '—');
      lines.push(`| ${arm} | s${cold} | ${step} | ${cells.join(' | ')} |`);
    }
  }
}
lines.push('');

// 2. Start and end of each arm, mean ± sd over cold starts.
lines.push('## Each arm at its first and last evaluation (mean ± sd over cold starts)', '');
lines.push(`| arm | runs | when | ${measures.map(([, label]) => label).join(' | ')} |`);
lines.push(`|---|---|---|${measures.map(() => '---|').join('')}`);
for (const arm of arms) {
  const all = runs(arm).map((cold) => evaluations(arm, cold));
  if (all.length === 0) continue;
  for (const when of ['step 0', 'final'] as const) {
    const rows = all.map((evals) => evals.get(when === 'step 0' ? 0 : lastStep(evals)));
    const cells = measures.map(([key]) => {
      const values = rows.map((row) => value(row, key)).filter((x): x is number => x !== undefined);
      return fmt(values, 3);
    });
    const steps = when === 'final' ? ` (${[...new Set(all.map(lastStep))].join(', ')})` : '';
    lines.push(`| ${arm} | ${all.length} | ${when}${steps} | ${cells.join(' | ')} |`);
  }
}
lines.push('');

// 3. Paired comparisons at the final evaluation.
const finals = (arm: Arm, key: string): Map<number, number> => {
  const out = new Map<number, number>();
  for (const cold of runs(arm)) {
    const evals = evaluations(arm, cold);
    const x = value(evals.get(lastStep(evals)), key);
    if (x !== undefined) out.set(cold, x);
  }
  return out;
};
const starts = (arm: Arm, key: string): Map<number, number> => {
  const out = new Map<number, number>();
  for (const cold of runs(arm)) {
    const x = value(evaluations(arm, cold).get(0), key);
    if (x !== undefined) out.set(cold, x);
  }
  return out;
};

function pairedRow(label: string, a: Map<number, number>, b: Map<number, number>, key: string): string {
  return `| ${label} | ${key} | ${pairedCells(pairedDifferences(colds, a, b))} |`;
}

lines.push('## Paired by cold start (95% t-interval; MDE of the paired design at the observed spread)', '');
lines.push('| comparison | metric | pairs | per cold start | mean | 95% CI | MDE |');
lines.push('|---|---|---|---|---|---|---|');
for (const [key, label] of measures.slice(0, 5)) {
  lines.push(pairedRow('calibration − verifier, final', finals('calibration', key), finals('verifier', key), label));
}
for (const arm of ['calibration', 'verifier'] as const) {
  for (const [key, label] of measures.slice(0, 4)) {
    lines.push(pairedRow(`${arm} final − lr0 final`, finals(arm, key), finals('lr0', key), label));
  }
}
for (const arm of ['calibration', 'verifier', 'lr0'] as const) {
  for (const [key, label] of measures.slice(0, 4)) {
    lines.push(pairedRow(`${arm}: final − step 0`, finals(arm, key), starts(arm, key), label));
  }
}
lines.push('');

// 4. The re-measurement at seed 11 (run.sh eval): the cold starts and the step-200 models, per level.
interface Calibration {
  brier: number;
  ece: number;
  auroc: number | null;
  meanConfidence: number;
  accuracy: number;
  stated: number;
  completions: number;
}
interface EvalFile {
  summary: {
    groups: { difficulty: number; passAt: Record<string, number>; calibration?: Calibration }[];
    overall: { passAt1: number };
    calibration?: Calibration;
  };
}
const results = join(import.meta.dirname, 'results');
const models = ['cold', 'verifier', 'calibration'] as const;
const evalOf = (model: string, cold: number) =>
  readJson<EvalFile>(join(results, `eval-${model}-c${cold}-seed11.json`))?.summary;
const levels = [1, 2, 3, 4, 5, 6, 7, 8, 9];
/** Completions of a level needed on each side (right, wrong) for its AUROC to count. */
const minimumSide = 10;
/** Mean within-level AUROC over the levels with ≥ minimumSide right and ≥ minimumSide wrong stating completions. */
const withinAuroc = (summary: EvalFile['summary']) =>
  mean(
    summary.groups.flatMap(({ calibration: c }) => {
      if (!c || typeof c.auroc !== 'number') return [];
      const right = Math.round(c.accuracy * c.stated);
      return Math.min(right, c.stated - right) >= minimumSide ? [c.auroc] : [];
    }),
  );
const seed11: Record<string, (summary: EvalFile['summary']) => number | undefined> = {
  'pass@1': (summary) => summary.overall.passAt1,
  'Brier ↓': (summary) => summary.calibration?.brier,
  'ECE ↓': (summary) => summary.calibration?.ece,
  'AUROC ↑': (summary) => summary.calibration?.auroc ?? undefined,
  'within-level AUROC ↑': withinAuroc,
  'mean confidence': (summary) => summary.calibration?.meanConfidence,
};
const present = models.filter((model) => colds.some((cold) => evalOf(model, cold)));
if (present.length > 0) {
  lines.push('## Re-measured at seed 11 (100 other held-out problems × 4 samples per level)', '');
  lines.push(
    'Within-level AUROC: the AUROC of the confidence inside each level, averaged over the levels with at least',
    `${minimumSide} right and ${minimumSide} wrong completions; it is ½ for a confidence that depends only on the difficulty.`,
    '',
  );
  lines.push(`| model | cold start | ${Object.keys(seed11).join(' | ')} |`);
  lines.push(`|---|---|${Object.keys(seed11).map(() => '---|').join('')}`);
  for (const model of present) {
    const all: number[][] = Object.keys(seed11).map(() => []);
    for (const cold of colds) {
      const summary = evalOf(model, cold);
      if (!summary) continue;
      const cells = Object.values(seed11).map((read, i) => {
        const x = read(summary);
        if (x !== undefined) all[i].push(x);
        return x?.toFixed(3) ?? '—';
      });
      lines.push(`| ${model} | s${cold} | ${cells.join(' | ')} |`);
    }
    lines.push(`| ${model} | mean ± sd | ${all.map((values) => fmt(values, 3)).join(' | ')} |`);
  }
  lines.push('');
  lines.push('Per level (seed 11): pass@1 / mean confidence / AUROC within the level', '');
  lines.push(`| model | cold start | ${levels.map((level) => `${level}d`).join(' | ')} |`);
  lines.push(`|---|---|${levels.map(() => '---|').join('')}`);
  for (const model of present) {
    for (const cold of colds) {
      const summary = evalOf(model, cold);
      if (!summary) continue;
      const cells = levels.map((level) => {
        const group = summary.groups.find((g) => g.difficulty === level);
        if (!group) return '—';
        const c = group.calibration;
        const auroc = typeof c?.auroc === 'number' ? c.auroc.toFixed(2) : '–';
        return `${group.passAt['1'].toFixed(2)} / ${c ? c.meanConfidence.toFixed(2) : '–'} / ${auroc}`;
      });
      lines.push(`| ${model} | s${cold} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('');
  lines.push('Paired by cold start at seed 11 (95% t-interval; MDE of the paired design at the observed spread)', '');
  lines.push('| comparison | metric | pairs | per cold start | mean | 95% CI | MDE |');
  lines.push('|---|---|---|---|---|---|---|');
  const at = (model: string, read: (summary: EvalFile['summary']) => number | undefined) => {
    const out = new Map<number, number>();
    for (const cold of colds) {
      const summary = evalOf(model, cold);
      const x = summary ? read(summary) : undefined;
      if (x !== undefined) out.set(cold, x);
    }
    return out;
  };
  for (const [label, read] of Object.entries(seed11)) {
    lines.push(pairedRow('calibration − verifier', at('calibration', read), at('verifier', read), label));
  }
  for (const [label, read] of Object.entries(seed11)) {
    lines.push(pairedRow('calibration − cold start', at('calibration', read), at('cold', read), label));
  }
  lines.push('');
}
// 5. Sampled tokens (equal-token check): Σ over steps of the mean completion length × completions a step.
lines.push('## Sampled completion tokens per run (Σ response/length_mean × 128 completions a step)', '');
lines.push('| arm | per cold start | mean |');
lines.push('|---|---|---|');
for (const arm of ['verifier', 'calibration'] as const) {
  const totals = runs(arm).map((cold) =>
    (readMetrics([metricsFile(arm, cold)]) ?? []).reduce(
      (sum, row) => sum + (typeof row['response/length_mean'] === 'number' ? (row['response/length_mean'] as number) * 128 : 0),
      0,
    ),
  );
  lines.push(`| ${arm} | ${totals.map((t) => Math.round(t)).join(', ')} | ${Math.round(mean(totals))} |`);
}
lines.push('');
const n = mean(arms.map((arm) => runs(arm).length));
lines.push(`Runs per arm: ${arms.map((arm) => `${arm} ${runs(arm).length}`).join(', ')} (mean ${n.toFixed(1)}).`, '');

process.stdout.write(`${lines.join('\n')}\n`);
