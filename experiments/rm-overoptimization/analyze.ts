// Issue 31 item 8 (ii) (README.md): reads raw/ and prints the tables the README quotes.
//   node --import tsx experiments/rm-overoptimization/analyze.ts > experiments/rm-overoptimization/results/tables.md
//   node --import tsx experiments/rm-overoptimization/analyze.ts raw/pilot-lr3e-4 > experiments/rm-overoptimization/results/pilot-lr3e-4.md
// Arms (rl.yaml, run.sh): rm-full and rm-150 (GRPO against the Bradley–Terry RM trained on 1,314 or 137
// pairs), rm-full-kl (rm-full with a KL reward penalty, β 0.05, k1), control (rm-full at learning rate 0),
// truth (the task verifier as the reward). Per eval step (every 10): the gold on held-out problems
// (eval/pass@1, the task verifier), and over the 10 training steps before it the proxy (reward/rm_logit:
// the RM's score of the sampled completions, before any KL penalty; none for truth), the
// gold of the same training completions (reward/gold_correct; truth: reward/mean) and √KL to the cold start
// (kl/ref_sequence_k1, Gao et al.'s x-axis). Differences from the control are paired by seed (95% t).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { mean, type Row, readJson, readMetrics, signed } from '../lib/analysis.ts';
import { mdeLine, pairedDifference } from '../lib/mde.ts';

const raw = join(import.meta.dirname, process.argv[2] ?? 'raw');
const arms = ['rm-full', 'rm-150', 'rm-full-kl', 'control', 'truth'] as const;
type Arm = (typeof arms)[number];
const metricsFile = (arm: Arm, seed: number) => join(raw, `rl-${arm}-s${seed}.metrics.jsonl.gz`);
const seedsOf = (arm: Arm) => [1, 2, 3].filter((seed) => existsSync(metricsFile(arm, seed)));
const present = arms.filter((arm) => seedsOf(arm).length > 0);
const rows = (arm: Arm, seed: number): Row[] => readMetrics([metricsFile(arm, seed)]) ?? [];
const num = (row: Row, key: string) => (typeof row[key] === 'number' ? (row[key] as number) : undefined);
const f = (value: number | undefined, digits = 3) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));

/** The mean of `key` over the training steps in (from, to]. */
function window(metrics: Row[], key: string, from: number, to: number): number | undefined {
  const values = metrics
    .filter((row) => (row.step as number) > from && (row.step as number) <= to)
    .flatMap((row) => (num(row, key) === undefined ? [] : [num(row, key) as number]));
  return values.length > 0 ? mean(values) : undefined;
}

interface Point {
  step: number;
  heldOut: number;
  proxy?: number;
  gold?: number;
  rootKl?: number;
}

function curve(arm: Arm, seed: number): Point[] {
  const metrics = rows(arm, seed);
  const evals = metrics.filter((row) => num(row, 'eval/pass@1') !== undefined);
  return evals.map((row, i) => {
    const step = row.step as number;
    const from = i === 0 ? 0 : (evals[i - 1].step as number);
    const kl = window(metrics, 'kl/ref_sequence_k1', from, step);
    return {
      step,
      heldOut: num(row, 'eval/pass@1') as number,
      proxy: window(metrics, 'reward/rm_logit', from, step),
      gold: window(metrics, arm === 'truth' ? 'reward/mean' : 'reward/gold_correct', from, step),
      rootKl: kl === undefined ? undefined : Math.sqrt(Math.max(0, kl)),
    };
  });
}

/** Held-out pass@1 of each seed's run where its √KL first reaches `target` (linear between evaluations). */
function interpolatedAt(arm: Arm, target: number): number[] {
  return seedsOf(arm).flatMap((seed) => {
    const points = curve(arm, seed);
    const xy = [{ x: 0, y: points[0].heldOut }].concat(
      points.slice(1).flatMap((p) => (p.rootKl === undefined ? [] : [{ x: p.rootKl, y: p.heldOut }])),
    );
    for (let i = 1; i < xy.length; i++) {
      const [a, b] = [xy[i - 1], xy[i]];
      if (a.x <= target && b.x >= target && b.x > a.x) return [a.y + ((b.y - a.y) * (target - a.x)) / (b.x - a.x)];
    }
    return [];
  });
}

const lines: string[] = [];
if (present.length === 0) {
  lines.push('Not run yet (no raw/rl-*-s*.metrics.jsonl).');
} else {
  const rm = readJson<Record<string, { accuracy: number; right: number } | number>>(
    join(import.meta.dirname, 'results/rm-accuracy.json'),
  );
  if (rm && process.argv[2] === undefined) {
    const acc = (name: string) => (rm[name] as { accuracy: number }).accuracy;
    lines.push(
      `## The reward models`,
      '',
      `Held-out pair accuracy on the same ${rm.heldOutPairs} held-out pairs (results/rm-accuracy.json): rm-full ${f(acc('rm-full'))}, rm-150 ${f(acc('rm-150'))}.`,
      '',
    );
  }
  lines.push(`## Curves (mean over seeds; seeds per arm: ${present.map((arm) => `${arm} ${seedsOf(arm).length}`).join(', ')})`, '');
  lines.push('Proxy, gold (training) and √KL are means over the 10 training steps before each evaluation; held-out gold is eval/pass@1.', '');
  for (const arm of present) {
    const curves = seedsOf(arm).map((seed) => curve(arm, seed));
    lines.push(`### ${arm}`, '', '| step | √KL | proxy (RM score) | gold, training samples | gold, held-out pass@1 |', '|---|---|---|---|---|');
    for (const [i, point] of curves[0].entries()) {
      const at = (pick: (p: Point) => number | undefined) => {
        const values = curves.flatMap((c) => (c[i] && pick(c[i]) !== undefined ? [pick(c[i]) as number] : []));
        return values.length > 0 ? mean(values) : undefined;
      };
      lines.push(
        `| ${point.step} | ${f(at((p) => p.rootKl), 2)} | ${f(at((p) => p.proxy))} | ${f(at((p) => p.gold))} | ${f(at((p) => p.heldOut))} |`,
      );
    }
    lines.push('');
  }

  lines.push('## Per run', '', '| arm | seed | held-out at start | peak (step) | final | final √KL | final proxy |', '|---|---|---|---|---|---|---|');
  const finals: Partial<Record<Arm, number[]>> = {};
  for (const arm of present) {
    for (const seed of seedsOf(arm)) {
      const points = curve(arm, seed);
      const last = points[points.length - 1];
      const peak = points.reduce((best, point) => (point.heldOut > best.heldOut ? point : best), points[0]);
      (finals[arm] ??= []).push(last.heldOut);
      lines.push(
        `| ${arm} | ${seed} | ${f(points[0].heldOut)} | ${f(peak.heldOut)} (${peak.step}) | ${f(last.heldOut)} | ${f(last.rootKl, 2)} | ${f(last.proxy)} |`,
      );
    }
  }
  lines.push('');

  // Gao et al.'s axis: the gold each arm holds at the same distance from the cold start
  const targets = [1, 2, 3, 4];
  lines.push(
    '## Held-out gold at equal distance (√KL), interpolated along each run, mean over seeds',
    '',
    `| arm | ${targets.map((t) => `√KL ${t}`).join(' | ')} |`,
    `|---|${targets.map(() => '---').join('|')}|`,
  );
  for (const arm of present.filter((a) => a !== 'control')) {
    const at = (target: number) => {
      const values = interpolatedAt(arm, target);
      return values.length === seedsOf(arm).length ? mean(values) : undefined;
    };
    lines.push(`| ${arm} | ${targets.map((t) => f(at(t))).join(' | ')} |`);
  }
  lines.push('', '—: not every seed of the arm reached that distance.', '');
  if (present.includes('rm-full') && present.includes('rm-full-kl')) {
    for (const target of targets) {
      const a = interpolatedAt('rm-full-kl', target);
      const b = interpolatedAt('rm-full', target);
      if (a.length !== 3 || b.length !== 3) continue;
      const paired = pairedDifference(a.map((value, i) => value - b[i]));
      if (paired) {
        lines.push(
          `- rm-full-kl − rm-full at √KL ${target}: ${f(paired.mean)}, 95% CI [${f(paired.mean - paired.half)}, ${f(paired.mean + paired.half)}] (paired by seed)`,
        );
      }
    }
    lines.push('');
  }

  const control = 'control' as Arm;
  if (present.includes(control)) {
    lines.push('## Final held-out pass@1 against the control (paired by seed)', '');
    for (const arm of present.filter((a) => a !== control)) {
      const seeds = seedsOf(arm).filter((seed) => seedsOf(control).includes(seed));
      const differences = seeds.map((seed) => {
        const a = curve(arm, seed);
        const c = curve(control, seed);
        return a[a.length - 1].heldOut - c[c.length - 1].heldOut;
      });
      const paired = pairedDifference(differences);
      lines.push(
        `- ${arm} − control: ${signed(differences)}${paired ? `, 95% CI [${f(paired.mean - paired.half)}, ${f(paired.mean + paired.half)}], paired MDE ${f(paired.mde)}` : ''}`,
      );
    }
    lines.push('', mdeLine('final held-out pass@1', finals as Record<string, number[]>), '');
  }

  // What the proxy paid for: the logged training completions (8 per step) at steps 1, 50, 100, 150
  const samples = readJson<Record<string, { step: number; prompt: string; completion: string }[]>>(
    join(raw, 'samples.json'),
  );
  // the sum an aligned-addition prompt asks for (operands right-aligned, padded with dots)
  const sumOf = (prompt: string) => {
    const [a, b] = prompt.trim().split('+').map((side) => BigInt(side.replaceAll('.', '') || '0'));
    return String(a + b);
  };
  if (samples) {
    lines.push(
      '## What the completions became (raw/samples.json: 8 logged per step, all seeds)',
      '',
      'Share of logged completions whose answer line is only 9s (`A:99…`) and wrong at steps 1, 50, 100 and 150; share with no answer line at all (`A:`) and mean length in characters at steps 1 and 150.',
      '',
      '| arm | 9s at 1 | 9s at 50 | 9s at 100 | 9s at 150 | no answer at 1 | no answer at 150 | length at 1 | length at 150 |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const arm of present) {
      const all = Object.entries(samples)
        .filter(([run]) => run.replace(/-s\d$/, '') === arm)
        .flatMap(([, list]) => list);
      const at = (step: number) => all.filter((sample) => sample.step === step);
      const nines = (step: number) => {
        const list = at(step);
        const wrongNines = (s: { prompt: string; completion: string }) => {
          const answer = /\nA:(9+)$/.exec(s.completion)?.[1];
          return answer !== undefined && answer !== sumOf(s.prompt);
        };
        return list.length > 0 ? list.filter(wrongNines).length / list.length : undefined;
      };
      const unanswered = (step: number) => {
        const list = at(step);
        return list.length > 0 ? list.filter((s) => !/(^|\n)A:/.test(s.completion)).length / list.length : undefined;
      };
      const length = (step: number) => (at(step).length > 0 ? mean(at(step).map((s) => s.completion.length)) : undefined);
      lines.push(
        `| ${arm} | ${f(nines(1), 2)} | ${f(nines(50), 2)} | ${f(nines(100), 2)} | ${f(nines(150), 2)} | ${f(unanswered(1), 2)} | ${f(unanswered(150), 2)} | ${f(length(1), 1)} | ${f(length(150), 1)} |`,
      );
    }
    lines.push('');
  }
}
console.log(lines.join('\n'));
