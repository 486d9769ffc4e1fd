// The KL term's reference (algorithm.kl.reference, KDRL's teacher) and its reward-guided mask
// (algorithm.kl.rewardGuided): the reference is built from the checkpoint named, not the init; one whose
// tokenizer differs from the policy's is refused naming both sizes; a weight-0 sequence keeps its tokens in
// the KL's normaliser and adds no term (klLossPenalty by hand).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { klLossPenalty } from '../../algorithms/kl.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { rlConfigSchema } from './config.ts';
import { buildContext, validateRlConfig } from './setup.ts';

const root = mkdtempSync(join(tmpdir(), 'kl-reference-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = (kl: Record<string, unknown>) =>
  rlConfigSchema.parse({
    name: 'kl-reference',
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [1] }],
    poolSize: 4,
    rollout: { groupSize: 2, maxTokens: 16 },
    algorithm: { kl: { coefficient: 0.01, estimator: 'k2', ...kl } },
    train: { steps: 1, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    policy: { workers: 1 },
  });

describe('algorithm.kl.reference and rewardGuided', () => {
  it('builds the reference from the named checkpoint (its log-probs are the teacher’s, not the init’s)', async () => {
    const probe = [1, 5, 6, 7, 8];
    const teacher = await EmbeddedBackend.load('examples/checkpoints/ladder-cold');
    const [expected] = await teacher.forward([probe]);
    teacher.dispose();
    const ctx = await buildContext(config({ reference: 'examples/checkpoints/ladder-cold' }));
    try {
      const [got] = await ctx.reference!.forward([probe]);
      const [init] = await ctx.policy.forward([probe]);
      expect(got).toEqual(expected);
      expect(got).not.toEqual(init);
    } finally {
      await ctx.policy.close?.();
      await ctx.reference?.close?.();
    }
  }, 60_000);

  it('refuses a reference whose tokenizer differs from the policy’s', async () => {
    const dir = join(root, 'other-vocab');
    const backend = await EmbeddedBackend.create(
      { vocabSize: 7, dModel: 16, layers: 1, heads: 2, contextLength: 32 },
      new CharTokenizer('0123'),
      1,
    );
    await backend.save(dir);
    backend.dispose();
    await expect(buildContext(config({ reference: dir }))).rejects.toThrow(
      /its tokenizer has 7 tokens, the policy's 99/,
    );
  }, 60_000);

  it('rewardGuided needs mode loss; a weight-0 sequence counts in the normaliser but adds no KL', () => {
    expect(() => validateRlConfig(config({ rewardGuided: true, mode: 'reward' }))).toThrow(
      /set algorithm.kl.mode to 'loss'/,
    );
    const sequences = [
      { logprobs: [-1, -2], refLogprobs: [-1.5, -2], mask: [1, 1] },
      { logprobs: [-1], refLogprobs: [-2], mask: [1], weight: 0 },
    ];
    const result = klLossPenalty(sequences, { estimator: 'k2', coefficient: 1, aggregation: 'token-mean' });
    // k2 = ½(log π_ref − log π)²; token-mean over all 3 tokens: ½·0.25/3 from the first token only
    expect(result.loss).toBeCloseTo((0.5 * 0.25) / 3, 12);
    // ∂k2/∂logp = logp − logp_ref = 0.5 at the first token, /3; the weight-0 sequence gets 0
    expect(result.weights[0][0]).toBeCloseTo(0.5 / 3, 12);
    expect(result.weights[1][0]).toBe(0);
  });
});
