// Sampler/trainer mismatch through the product path: buildContext on the shipped demo-cold checkpoint
// (workers: 1), one rlStep, with the policy wrapped so that `sample` reports perturbed log-probs for some
// tokens (an artificially broken sampler; tokens and text are untouched, so every run samples the same
// completions and shuffles them the same way). The wrapper also records the datums sent to forwardBackward.
//   run A: honest sampler, correction off         the mismatch metrics are ≈ 0
//   run B: perturbed sampler, correction off      the metrics see it: frac_over = the perturbed share
//   run C: perturbed sampler, token-mask [1/3, 3]  every perturbed token's weight is exactly 0, every other
//                                                  weight equals run A's (times ρ ≈ 1)
// Every third completion token (positions 1, 4, 7, …) is perturbed by ±(1.5…2.5) nats from a seeded Rng:
// far outside ln 3 ≈ 1.1, so each lies outside [1/3, 3], while the honest tokens differ only by the
// sampler's float error.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend, SampledSequence } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { rlConfigSchema } from './config.ts';
import { buildContext } from './setup.ts';
import { rlStep } from './step.ts';

const demoCold = path.resolve(import.meta.dirname, '..', '..', '..', 'examples', 'checkpoints', 'demo-cold');

const isPerturbed = (t: number) => t % 3 === 1;

interface Run {
  metrics: Record<string, number>;
  /** Datums sent to forwardBackward, in order. */
  data: Datum[];
  /** Per datum: which completion tokens the sampler misreported. */
  perturbed: boolean[][];
  /** Per datum: the prompt (context) length. */
  contextLengths: number[];
}

/** Wraps `inner` so that sampled log-probs are shifted on the perturbed positions (when `perturb`). */
function wrap(inner: PolicyBackend, perturb: boolean) {
  const rng = new Rng(2024);
  const data: Datum[] = [];
  const contexts = new Map<string, number>();
  const policy: PolicyBackend = {
    tokenizer: inner.tokenizer,
    contextLength: inner.contextLength,
    async sample(prompts, options) {
      const result = await inner.sample(prompts, options);
      return result.map((group, p) =>
        group.map((sequence): SampledSequence => {
          contexts.set([...prompts[p], ...sequence.tokens].join(','), prompts[p].length);
          if (!perturb) return sequence;
          const logprobs = sequence.logprobs.map((logprob, t) =>
            isPerturbed(t) ? logprob + (rng.next() < 0.5 ? -1 : 1) * (1.5 + rng.next()) : logprob,
          );
          return { ...sequence, logprobs };
        }),
      );
    },
    forward: (sequences) => inner.forward(sequences),
    async forwardBackward(datums, loss) {
      data.push(...datums);
      return inner.forwardBackward(datums, loss);
    },
    optimStep: (options) => inner.optimStep(options),
    save: (dir) => inner.save(dir),
    close: () => inner.close?.() ?? Promise.resolve(),
  };
  return { policy, data, contexts };
}

async function run(perturb: boolean, rolloutCorrection?: Record<string, unknown>): Promise<Run> {
  const config = rlConfigSchema.parse({
    seed: 3,
    init: { checkpoint: demoCold },
    tasks: [{ task: 'addition', difficulties: [3, 4] }],
    poolSize: 40,
    rollout: { groupSize: 4, maxTokens: 64 },
    algorithm: { loss: { name: 'ppo-clip', options: { rolloutCorrection } } },
    train: { steps: 1, batchSize: 3, learningRate: 1e-4 },
    policy: { workers: 1 },
  });
  const ctx = await buildContext(config);
  const inner = ctx.policy;
  const wrapped = wrap(inner, perturb);
  ctx.policy = wrapped.policy;
  try {
    const report = await rlStep(ctx, 1, 1e-4);
    const contextLengths = wrapped.data.map((datum) => wrapped.contexts.get(datum.tokens.join(','))!);
    return {
      metrics: report.metrics,
      data: wrapped.data,
      contextLengths,
      perturbed: wrapped.data.map((datum, d) =>
        datum.tokens.slice(contextLengths[d]).map((_, t) => isPerturbed(t)),
      ),
    };
  } finally {
    await inner.close?.();
  }
}

describe('mismatch on the embedded model with a perturbed sampler', () => {
  it('metrics ≈ 0 when honest, = the perturbed share when not; token-mask zeroes exactly those tokens', async () => {
    const honest = await run(false);
    const noisy = await run(true);
    const masked = await run(true, { mode: 'token-mask', clipMin: 1 / 3 });

    const tokens = honest.perturbed.flat().length;
    const perturbedTokens = honest.perturbed.flat().filter(Boolean).length;
    expect(tokens).toBeGreaterThan(20);
    expect(perturbedTokens).toBeGreaterThan(5);

    // A: the KV-cache sampler and the teacher-forced pass agree up to float error.
    expect(honest.metrics['mismatch/tokens']).toBe(tokens);
    expect(honest.metrics['mismatch/abs_diff_mean']).toBeLessThan(1e-4);
    expect(honest.metrics['mismatch/abs_diff_max']).toBeLessThan(1e-3);
    expect(Math.abs(honest.metrics['mismatch/k3_kl'])).toBeLessThan(1e-6);
    expect(honest.metrics['mismatch/frac_over']).toBe(0);
    expect(honest.metrics['mismatch/masked_frac']).toBe(0);
    expect(honest.metrics['mismatch/is_weight_mean']).toBe(1);

    // B: detected without a correction: exactly the perturbed tokens lie outside [1/3, 3].
    expect(noisy.metrics['mismatch/tokens']).toBe(tokens);
    expect(noisy.metrics['mismatch/frac_over']).toBeCloseTo(perturbedTokens / tokens, 12);
    expect(noisy.metrics['mismatch/abs_diff_mean']).toBeGreaterThan((1.5 * perturbedTokens) / tokens);
    expect(noisy.metrics['mismatch/abs_diff_max']).toBeGreaterThan(1.5);
    expect(noisy.metrics['mismatch/k3_kl']).toBeGreaterThan(0.1);
    expect(noisy.metrics['mismatch/masked_frac']).toBe(0);

    // C: the same share is masked, and the metrics still come out (from the old-logprob pass).
    expect(masked.metrics['mismatch/masked_frac']).toBeCloseTo(perturbedTokens / tokens, 12);
    expect(masked.metrics['mismatch/frac_over']).toBeCloseTo(perturbedTokens / tokens, 12);
    expect(masked.data).toHaveLength(honest.data.length);
    let compared = 0;
    masked.data.forEach((datum, d) => {
      expect(datum.tokens).toEqual(honest.data[d].tokens);
      const start = masked.contextLengths[d] - 1;
      masked.perturbed[d].forEach((perturbed, t) => {
        const weight = datum.weights[start + t];
        const reference = honest.data[d].weights[start + t];
        if (perturbed) {
          expect(weight, `datum ${d} token ${t}`).toBe(0);
        } else {
          expect(Math.abs(weight - reference), `datum ${d} token ${t}`).toBeLessThanOrEqual(
            1e-4 * Math.abs(reference),
          );
          if (reference !== 0) compared++;
        }
      });
    });
    // Enough non-zero honest weights for the comparison to mean something (zero-advantage groups give 0).
    expect(compared).toBeGreaterThan(5);
  }, 60_000);
});
