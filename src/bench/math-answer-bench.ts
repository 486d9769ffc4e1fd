// Benchmark of the math-answer verifier: verifications per second through the batch API (worker pool), and
// p50/p99 latency of single verifications (submit → verdict, one at a time, so no queueing).
// The mix imitates RL rollouts on MATH/GSM8K-style problems: chain-of-thought text of ~0.5–2 kB ending in a
// boxed answer; mostly integers, then fractions/radicals, expressions, tuples/sets/intervals, and some
// completions with no answer; about 40% wrong answers. It is generated with a seeded Rng, independently of
// the test cases. Each task carries its problem text, as the reward passes problem.prompt (the echo rule
// reads it; texts differ per task, the worst case for its cache). The `curricula bench` command (owned
// elsewhere) calls benchMathAnswer().
// Graders: measures our Math-Verify v0.8.0-style verifier; no comparison run against Math-Verify itself
// (Python/SymPy is not available here).
import { Rng } from '../core/rng.ts';
import { MathVerifier } from '../rewards/math-answer/reward.ts';
import { DEFAULT_COMPARE } from '../rewards/math-answer/scalar.ts';
import type { VerifyTask } from '../rewards/math-answer/verify.ts';

export interface MathBenchOptions {
  /** Number of verifications in the throughput run. */
  items?: number;
  /** Items per score() batch (as a trainer would send one step's rollouts). */
  batchSize?: number;
  /** Single verifications timed for the latency percentiles. */
  latencySamples?: number;
  poolSize?: number;
  seed?: number;
  /** Verifications run before timing, to warm the JIT in every worker. */
  warmupItems?: number;
}

export interface MathBenchResult {
  items: number;
  poolSize: number;
  batchSize: number;
  seconds: number;
  verificationsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /**
   * CPU seconds the whole process (main thread + workers) spent in the throughput run, and verifications per
   * CPU-second: on a shared, loaded machine wall-clock rates understate what idle cores give; with N idle
   * cores the throughput is at most about N × verificationsPerCpuSecond.
   */
  cpuSeconds: number;
  verificationsPerCpuSecond: number;
  /** Worker start-up (tsx + compute-engine load + warm-up), excluded from the rates above. */
  startupMs: number;
  correctFraction: number;
  timeouts: number;
}

const FILLER = [
  'We start by writing down what is given.',
  'Let us simplify the expression step by step.',
  'Substituting the known values, we obtain $a = 3$ and $b = 4$.',
  'By the Pythagorean theorem, $c^2 = a^2 + b^2$.',
  'Multiplying both sides by $2$ gives $2x + 6 = 14$.',
  'Therefore the number of ways is $\\binom{5}{2} = 10$.',
  'Note that $\\frac{1}{2} + \\frac{1}{3} = \\frac{5}{6}$.',
  'Checking the boundary case $x = 0$ shows it is not allowed.',
  'Summing the arithmetic series gives $\\frac{n(n+1)}{2}$.',
  'So the probability is the ratio of favourable to total outcomes.',
];

/** A gold, a right and a wrong answer, and the problem text (the reward sees it: the echo rule reads it). */
type Generator = (rng: Rng) => { gold: string; right: string; wrong: string; question: string };

const GENERATORS: [number, Generator][] = [
  [
    0.55,
    (rng) => {
      const n = rng.int(-50, 5000);
      return {
        gold: String(n),
        right: n > 999 && rng.next() < 0.3 ? n.toLocaleString('en-US') : String(n),
        wrong: String(n + rng.int(1, 9)),
        question: `Each of $${Math.abs(n) + 7}$ boxes holds some marbles; compute $${n} \\times 1 + 0$ in words.`,
      };
    },
  ],
  [
    0.15,
    (rng) => {
      const p = rng.int(1, 30);
      const q = rng.int(2, 31);
      const radical = rng.int(2, 7);
      return rng.next() < 0.5
        ? {
            gold: `\\frac{${p}}{${q}}`,
            right: `\\dfrac{${2 * p}}{${2 * q}}`,
            wrong: `\\frac{${p + 1}}{${q}}`,
            question: `Write $\\frac{${3 * p}}{${3 * q}}$ in lowest terms.`,
          }
        : {
            gold: `${p}\\sqrt{${radical}}`,
            right: `\\sqrt{${p * p * radical}}`,
            wrong: `${p}\\sqrt{${radical + 1}}`,
            question: `Simplify $\\sqrt{${p * p}} \\cdot \\sqrt{${radical}}$.`,
          };
    },
  ],
  [
    0.1,
    (rng) => {
      const a = rng.int(1, 9);
      const b = rng.int(1, 9);
      return {
        gold: `x^2+${a + b}x+${a * b}`,
        right: `(x+${a})(x+${b})`,
        wrong: `(x+${a})(x-${b})`,
        question: `Find the monic quadratic $p(x)$ whose roots are $x = -${a}$ and $x = -${b}$.`,
      };
    },
  ],
  [
    0.1,
    (rng) => {
      const a = rng.int(-9, 9);
      const b = a + rng.int(1, 9);
      return rng.next() < 0.5
        ? {
            gold: `(${a}, ${b})`,
            right: `(${a},${b})`,
            wrong: `(${b}, ${a})`,
            question: `Solve $x - y = ${a - b}$ and $x + y = ${a + b}$ for $(x, y)$.`,
          }
        : {
            gold: `[${a}, ${b})`,
            right: `[${a},${b})`,
            wrong: `(${a}, ${b}]`,
            question: `Solve $${a} \\le x < ${b}$ in interval notation.`,
          };
    },
  ],
  [
    0.1,
    (rng) => ({
      gold: String(rng.int(1, 99)),
      right: '',
      wrong: '',
      question: 'How many primes are below 100?',
    }),
  ],
];

/** A seeded, reproducible mix of verification tasks. */
export function benchMix(count: number, seed = 1): VerifyTask[] {
  const rng = new Rng(seed);
  const tasks: VerifyTask[] = [];
  for (let i = 0; i < count; i++) {
    const generator = GENERATORS[rng.categorical(GENERATORS.map(([weight]) => weight))][1];
    const { gold, right, wrong, question } = generator(rng);
    const sentences = Array.from({ length: rng.int(6, 24) }, () => rng.pick(FILLER));
    const answer = right === '' ? '' : rng.next() < 0.6 ? right : wrong;
    const ending =
      answer === '' ? 'I am not sure how to finish.' : `The final answer is $\\boxed{${answer}}$.`;
    tasks.push({
      kind: 'verify',
      gold,
      completion: `${sentences.join(' ')}\n\n${ending}`,
      question,
      compare: DEFAULT_COMPARE,
      extract: {},
    });
  }
  return tasks;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export async function benchMathAnswer(options: MathBenchOptions = {}): Promise<MathBenchResult> {
  const items = options.items ?? 4000;
  const batchSize = options.batchSize ?? 256;
  const poolSize = options.poolSize ?? 2;
  const verifier = new MathVerifier({ poolSize, timeoutMs: 2000 });
  try {
    const startupStart = performance.now();
    await verifier.run(benchMix(poolSize, 998)); // start every worker
    const startupMs = performance.now() - startupStart;
    // JIT warm-up (a trainer's workers live for the whole run): a different seed, so no cache hits later.
    await verifier.run(benchMix(options.warmupItems ?? 1000, 999));

    const tasks = benchMix(items, options.seed ?? 1);
    let correct = 0;
    let timeouts = 0;
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < tasks.length; i += batchSize) {
      const verdicts = await verifier.run(tasks.slice(i, i + batchSize));
      for (const verdict of verdicts) {
        if (verdict.correct) correct++;
        if (verdict.reason === 'timeout') timeouts++;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;

    const latencies: number[] = [];
    for (const task of benchMix(options.latencySamples ?? 300, (options.seed ?? 1) + 1)) {
      const t0 = performance.now();
      await verifier.run([task]);
      latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    return {
      items,
      poolSize,
      batchSize,
      seconds,
      verificationsPerSecond: items / seconds,
      latencyP50Ms: percentile(latencies, 0.5),
      latencyP99Ms: percentile(latencies, 0.99),
      cpuSeconds,
      verificationsPerCpuSecond: items / cpuSeconds,
      startupMs,
      correctFraction: correct / items,
      timeouts,
    };
  } finally {
    await verifier.close();
  }
}
