// Sampler/trainer mismatch through the product path: buildContext on the shipped demo-cold checkpoint
// (workers: 1), one rlStep, with the policy wrapped so that `sample` reports perturbed log-probs for some
// tokens (an artificially broken sampler; tokens and text are untouched, so every run samples the same
// completions and shuffles them the same way). The wrapper also records the datums sent to forwardBackward.
//   run A: honest sampler, correction off          the mismatch metrics are ≈ 0
//   run B: perturbed sampler, correction off       the metrics see it: frac_over = the perturbed share
//   run C: perturbed sampler, token-mask [1/3, 3]  every perturbed token's weight is exactly 0, every other
//                                                  weight equals run A's (times ρ ≈ 1)
//   run D: perturbed sampler, token-truncate at 3, two epochs with an optimiser that applies nothing:
//          each perturbed token's weight is run A's times min(e^−δ, 3); the second epoch (log-probs
//          recomputed by a forward pass) gives the same weights, since π_old is the trainer's own.
// Every third completion token (positions 1, 4, 7, …) is shifted by δ = ±(1.5…2.5) nats, drawn from an Rng
// seeded by the completion's tokens (so identical completions get identical shifts): far outside
// ln 3 ≈ 1.1, so each lies outside [1/3, 3], while the honest tokens differ only by float error.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend, SampledSequence } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { rlConfigSchema } from './config.ts';
import { buildContext } from './setup.ts';
import { rlStep } from './step.ts';

const demoCold = path.resolve(import.meta.dirname, '..', '..', '..', 'examples', 'checkpoints', 'demo-cold');

const isPerturbed = (t: number) => t % 3 === 1;

/** FNV-1a of a string: the seed of one completion's shifts. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return value;
}

interface Run {
  metrics: Record<string, number>;
  /** Datums sent to forwardBackward, in order. */
  data: Datum[];
  /** Per datum: the prompt (context) length. */
  contextLengths: number[];
  /** Per datum: the shift δ added to each completion token's sampled log-prob (0 = honest). */
  shifts: number[][];
}

interface RunOptions {
  perturb: boolean;
  rolloutCorrection?: Record<string, unknown>;
  epochs?: number;
  /** optimStep applies nothing (the weights stay at the sampling weights). */
  frozen?: boolean;
}

/** Wraps `inner`: sampled log-probs shifted on the perturbed positions (when `perturb`), datums recorded. */
function wrap(inner: PolicyBackend, options: RunOptions) {
  const data: Datum[] = [];
  const contexts = new Map<string, number>();
  const shifts = new Map<string, number[]>();
  let steps = 0;
  const policy: PolicyBackend = {
    tokenizer: inner.tokenizer,
    contextLength: inner.contextLength,
    async sample(prompts, sampleOptions) {
      const result = await inner.sample(prompts, sampleOptions);
      return result.map((group, p) =>
        group.map((sequence): SampledSequence => {
          const key = [...prompts[p], ...sequence.tokens].join(',');
          const rng = new Rng(hash(key));
          const shift = sequence.tokens.map((_, t) =>
            options.perturb && isPerturbed(t) ? (rng.next() < 0.5 ? -1 : 1) * (1.5 + rng.next()) : 0,
          );
          contexts.set(key, prompts[p].length);
          shifts.set(key, shift);
          return { ...sequence, logprobs: sequence.logprobs.map((logprob, t) => logprob + shift[t]) };
        }),
      );
    },
    forward: (sequences) => inner.forward(sequences),
    async forwardBackward(datums, loss) {
      data.push(...datums);
      return inner.forwardBackward(datums, loss);
    },
    optimStep: async (optimOptions) =>
      options.frozen ? { gradNorm: 0, step: ++steps } : inner.optimStep(optimOptions),
    save: (dir) => inner.save(dir),
  };
  return { policy, data, contexts, shifts };
}

async function run(options: RunOptions): Promise<Run> {
  const config = rlConfigSchema.parse({
    seed: 3,
    init: { checkpoint: demoCold },
    tasks: [{ task: 'addition', difficulties: [3, 4] }],
    poolSize: 40,
    rollout: { groupSize: 4, maxTokens: 64 },
    algorithm: {
      loss: { name: 'ppo-clip', options: { rolloutCorrection: options.rolloutCorrection } },
      epochs: options.epochs ?? 1,
    },
    train: { steps: 1, batchSize: 3, learningRate: 1e-4 },
    policy: { workers: 1 },
  });
  const ctx = await buildContext(config);
  const inner = ctx.policy;
  const wrapped = wrap(inner, options);
  ctx.policy = wrapped.policy;
  try {
    const report = await rlStep(ctx, 1, 1e-4);
    const keys = wrapped.data.map((datum) => datum.tokens.join(','));
    return {
      metrics: report.metrics,
      data: wrapped.data,
      contextLengths: keys.map((key) => wrapped.contexts.get(key)!),
      shifts: keys.map((key) => wrapped.shifts.get(key)!),
    };
  } finally {
    await inner.close?.();
  }
}

/** The completion-token weights of datum d. */
const completionWeights = (result: Run, d: number) =>
  result.data[d].weights.slice(result.contextLengths[d] - 1);

let honestRun: Promise<Run> | null = null;
const honest = () => {
  honestRun ??= run({ perturb: false });
  return honestRun;
};

describe('mismatch on the embedded model with a perturbed sampler', () => {
  it('metrics ≈ 0 when honest, = the perturbed share when not; token-mask zeroes exactly those tokens', async () => {
    const a = await honest();
    const b = await run({ perturb: true });
    const c = await run({ perturb: true, rolloutCorrection: { mode: 'token-mask', clipMin: 1 / 3 } });

    const perturbedFlags = b.shifts.flat().map((shift) => shift !== 0);
    const tokens = perturbedFlags.length;
    const perturbedTokens = perturbedFlags.filter(Boolean).length;
    expect(tokens).toBeGreaterThan(50);
    expect(perturbedTokens).toBeGreaterThan(10);
    const share = perturbedTokens / tokens;

    // A: the KV-cache sampler and the teacher-forced pass agree up to float error.
    expect(a.metrics['mismatch/tokens']).toBe(tokens);
    expect(a.metrics['mismatch/abs_diff_mean']).toBeLessThan(1e-4);
    expect(a.metrics['mismatch/abs_diff_max']).toBeLessThan(1e-3);
    expect(Math.abs(a.metrics['mismatch/k3_kl'])).toBeLessThan(1e-6);
    expect(a.metrics['mismatch/frac_over']).toBe(0);
    expect(a.metrics['mismatch/masked_frac']).toBe(0);
    expect(a.metrics['mismatch/is_weight_mean']).toBe(1);

    // B: detected without a correction: exactly the perturbed tokens lie outside [1/3, 3].
    expect(b.metrics['mismatch/tokens']).toBe(tokens);
    expect(b.metrics['mismatch/frac_over']).toBeCloseTo(share, 12);
    expect(b.metrics['mismatch/abs_diff_mean']).toBeGreaterThan(1.5 * share);
    expect(b.metrics['mismatch/abs_diff_max']).toBeGreaterThan(1.5);
    expect(b.metrics['mismatch/k3_kl']).toBeGreaterThan(0.1);
    expect(b.metrics['mismatch/masked_frac']).toBe(0);

    // C: the same share is masked, and the metrics still come out (from the old-logprob pass).
    expect(c.metrics['mismatch/masked_frac']).toBeCloseTo(share, 12);
    expect(c.metrics['mismatch/frac_over']).toBeCloseTo(share, 12);
    expect(c.data).toHaveLength(a.data.length);
    let compared = 0;
    c.data.forEach((datum, d) => {
      expect(datum.tokens).toEqual(a.data[d].tokens);
      const reference = completionWeights(a, d);
      completionWeights(c, d).forEach((weight, t) => {
        if (c.shifts[d][t] !== 0) {
          expect(weight, `datum ${d} token ${t}`).toBe(0);
        } else {
          expect(Math.abs(weight - reference[t]), `datum ${d} token ${t}`).toBeLessThanOrEqual(
            1e-4 * Math.abs(reference[t]),
          );
          if (reference[t] !== 0) compared++;
        }
      });
    });
    // Enough non-zero honest weights for the comparison to mean something (zero-advantage groups give 0).
    expect(compared).toBeGreaterThan(10);
  }, 60_000);

  it('token-truncate: perturbed weights are run A’s × min(e^−δ, 3); a recomputed epoch keeps them', async () => {
    const a = await honest();
    const d = await run({
      perturb: true,
      rolloutCorrection: { mode: 'token-truncate' },
      epochs: 2,
      frozen: true,
    });
    const n = a.data.length;
    expect(d.data).toHaveLength(2 * n);
    let truncated = 0;
    let scaled = 0;
    for (let index = 0; index < n; index++) {
      expect(d.data[index].tokens).toEqual(a.data[index].tokens);
      const reference = completionWeights(a, index);
      completionWeights(d, index).forEach((weight, t) => {
        const rho = Math.exp(-d.shifts[index][t]);
        const expected = reference[t] * Math.min(rho, 3);
        expect(Math.abs(weight - expected), `datum ${index} token ${t}`).toBeLessThanOrEqual(
          1e-4 * Math.abs(expected) + 1e-12,
        );
        if (reference[t] !== 0 && rho > 3) truncated++;
        if (reference[t] !== 0 && rho < 1) scaled++;
      });
    }
    expect(truncated).toBeGreaterThan(2);
    expect(scaled).toBeGreaterThan(2);
    // Epoch 2 (shuffled anew, log-probs from a forward pass): π_θ/π_old = 1 again, so each completion
    // gets the weights it got in epoch 1; a sampler-based π_old would clip the perturbed tokens here.
    const first = new Map(d.data.slice(0, n).map((datum) => [datum.tokens.join(','), datum.weights]));
    for (const datum of d.data.slice(n)) {
      const earlier = first.get(datum.tokens.join(','))!;
      datum.weights.forEach((weight, t) => {
        expect(Math.abs(weight - earlier[t])).toBeLessThanOrEqual(1e-5 * Math.abs(earlier[t]) + 1e-12);
      });
    }
  }, 60_000);
});
