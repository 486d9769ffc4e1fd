// Per-attempt token limits of the RL step's sampling (sample-rows.ts, used by rollout.ts sampleGroups):
// rows are grouped by limit, one call each; one limit for all keeps the single call the step always made.
// The last test runs sampleGroups on the real demo-cold model with a hinted prompt far longer than the
// others: before per-attempt limits, its length cut every completion of the step.
import { describe, expect, it } from 'vitest';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { additionProblem } from '../../tasks/addition.ts';
import { rlConfigSchema } from './config.ts';
import type { RlContext } from './context.ts';
import { sampleGroups } from './rollout.ts';
import { callSeed, sampleRows } from './sample-rows.ts';

/** Forwards to `policy` (or answers with row-numbered stubs) and records each call's shape. */
function recording(policy?: PolicyBackend) {
  const calls: { contexts: number[][]; n: number; maxTokens: number; seed: number }[] = [];
  let counter = 0;
  const recorder = {
    ...(policy ?? { contextLength: 64 }),
    tokenizer: policy?.tokenizer,
    contextLength: policy?.contextLength ?? 64,
    async sample(contexts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      calls.push({ contexts, n: options.n, maxTokens: options.maxTokens, seed: options.seed });
      if (policy) return policy.sample(contexts, options);
      return contexts.map(() =>
        Array.from({ length: options.n }, () => {
          const text = String(counter++);
          return { tokens: [1], text, logprobs: [-1], samplingLogprobs: [-1], stopReason: 'stop' as const };
        }),
      );
    },
  } as unknown as PolicyBackend;
  return { recorder, calls };
}

const options = { temperature: 1, topP: 1, seed: 77 };

describe('sampleRows', () => {
  it('one limit for every row: the one call with n per context and the seed itself', async () => {
    const { recorder, calls } = recording();
    const rows = await sampleRows(recorder, [[1], [2], [3]], [2, 2, 2], [40, 40, 40], options);
    expect(calls).toEqual([{ contexts: [[1], [2], [3]], n: 2, maxTokens: 40, seed: 77 }]);
    expect(rows.map((row) => row.map((sequence) => sequence.text))).toEqual([
      ['0', '1'],
      ['2', '3'],
      ['4', '5'],
    ]);
  });

  it('several limits: one call per limit, longest first, distinct seeds, results back in row order', async () => {
    const { recorder, calls } = recording();
    const rows = await sampleRows(recorder, [[1], [2], [3], [4]], [2, 2, 2, 2], [96, 30, 96, 30], options);
    expect(calls).toEqual([
      { contexts: [[1], [3]], n: 2, maxTokens: 96, seed: 77 },
      { contexts: [[2], [4]], n: 2, maxTokens: 30, seed: callSeed(77, 1) },
    ]);
    expect(callSeed(77, 1)).not.toBe(77);
    expect(rows.map((row) => row.map((sequence) => sequence.text))).toEqual([
      ['0', '1'],
      ['4', '5'],
      ['2', '3'],
      ['6', '7'],
    ]);
  });

  it('unequal counts under one limit repeat each context once per completion (the rollout budget)', async () => {
    const { recorder, calls } = recording();
    const rows = await sampleRows(recorder, [[1], [2]], [1, 3], [40, 40], options);
    expect(calls).toEqual([{ contexts: [[1], [2], [2], [2]], n: 1, maxTokens: 40, seed: 77 }]);
    expect(rows.map((row) => row.length)).toEqual([1, 3]);
  });
});

describe('sampleGroups with a long hinted prompt beside short ones (real model)', () => {
  it("gives each attempt the room after its own context, not after the step's longest", async () => {
    const policy = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
    try {
      const { recorder, calls } = recording(policy);
      const config = rlConfigSchema.parse({
        tasks: [{ task: 'addition', difficulties: [2] }],
        init: { checkpoint: 'examples/checkpoints/demo-cold' },
        rollout: { groupSize: 2, maxTokens: 60 },
        train: { steps: 1, learningRate: 0.001 },
      });
      const problem = additionProblem('12', '34');
      const hint = `\n## Hint.${'1+2=3\n'.repeat(14)}`;
      const attempts = [
        { problem, prompt: problem.prompt, prefix: '', guided: false },
        { problem, prompt: problem.prompt + hint, prefix: '', guided: true },
      ];
      const groups = await sampleGroups({ policy: recorder, config } as RlContext, attempts, 5);
      const [short, long] = groups.map((group) => group.context.length);
      expect(long).toBeGreaterThan(short + 60);
      // The plain attempt keeps the configured 60 tokens; the hinted one gets what its context leaves.
      expect(calls.map((call) => call.maxTokens)).toEqual([60, policy.contextLength - long]);
      expect(policy.contextLength - long).toBeLessThan(60);
      for (const [index, group] of groups.entries()) {
        const limit = index === 0 ? 60 : policy.contextLength - long;
        for (const rollout of group.rollouts) expect(rollout.tokens.length).toBeLessThanOrEqual(limit);
      }
    } finally {
      policy.dispose();
    }
  });
});
