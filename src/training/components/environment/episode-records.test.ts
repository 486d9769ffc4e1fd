// What the run store keeps of an RL step sampled as multi-turn episodes (rollout.environment): each
// member's turns (GroupRollout.episode, set by episode-groups.ts) become the samples table's `episode`
// column (sample-records.ts → sample-columns.ts), spans indexing the completion's tokens. Checked on a
// stub policy that calls the calculator (spans computed by hand), and on a real step of the shipped cold
// start, where every span must agree with the loss mask the update trained with; both through a RunStore.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PolicyBackend, SampledSequence } from '../../../core/policy.ts';
import type { Reward, RewardInput } from '../../../core/reward.ts';
import { CharTokenizer } from '../../../policy/tokenizer.ts';
import { RunStore, type SampleRecord } from '../../../runs/run-store.ts';
import { MAX_ERROR_CHARS } from '../../../runs/sample-columns.ts';
import { perRow } from '../../../testing/policy/test-helpers.ts';
import { stubRlContext } from '../../../testing/training/rl/test-context.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { sampleEpisode, sampleRecords } from '../../rl/sample-records.ts';
import { buildContext } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { environmentComponent } from './component.ts';

const tokenizer = new CharTokenizer([
  '\n',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
]);

/** Writes the records to a fresh store and reads them back. */
function roundTrip(records: SampleRecord[]): SampleRecord[] {
  const store = RunStore.create(join(mkdtempSync(join(tmpdir(), 'episode-records-')), 'run'), {});
  try {
    store.logSamples(1, records);
    return store.samples(1);
  } finally {
    store.close();
  }
}

describe('episode sample records', () => {
  it('stores a calculator episode turn by turn: policy spans, the tool output span, rewards, end', async () => {
    const policy = {
      tokenizer,
      contextLength: 128,
      async sample(prompts: number[][]): Promise<SampledSequence[][]> {
        return prompts.map((prompt) => {
          const call = !tokenizer.decode(prompt).includes('<out>');
          const text = call ? '<calc>1+2</calc>' : '\nA: 3';
          const tokens = [...tokenizer.encode(text), ...(call ? [] : [tokenizer.eos])];
          const logprobs = tokens.map(() => -0.5);
          return [{ tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: call ? 'stop' : 'eos' }];
        });
      },
      forwardBackward: async () => ({ loss: 0, logprobs: [], tokens: 0 }),
      optimStep: async () => ({ gradNorm: 0, step: 1 }),
    } as unknown as PolicyBackend;
    policy.sample = perRow(policy.sample.bind(policy));
    const reward: Reward = {
      name: 'stub',
      score: async (inputs: readonly RewardInput[]) =>
        inputs.map(() => ({ reward: 1, components: {}, reason: '' })),
    };
    const ctx = stubRlContext({ policy, reward, groupSize: 2, algorithm: {} });
    ctx.config = rlConfigSchema.parse({
      ...ctx.config,
      rollout: { ...ctx.config.rollout, environment: { name: 'tag-tools' } },
    });
    ctx.components = [(await environmentComponent.create({ config: ctx.config } as never))!];
    const report = await rlStep(ctx, 1, 1e-3);
    const records = roundTrip(sampleRecords(report.groups, 100, { tokenizer, scaffold: 'identity' }));
    expect(records).toHaveLength(4);
    for (const record of records) {
      // '<calc>1+2</calc>' (16 sampled) '<out>3</out>' (12 written) '\nA: 3' + EOS (6 sampled).
      expect(record.tokens!.join('')).toBe('<calc>1+2</calc><out>3</out>\nA: 3');
      expect(record.episode).toEqual({
        turns: [
          { action: [0, 16], output: [16, 28], outputTokensBefore: 12, reward: 0, stopReason: 'stop' },
          { action: [28, 34], output: [34, 34], outputTokensBefore: 0, reward: 0, stopReason: 'eos' },
        ],
        end: 'done',
        errors: { parse: 0, tool: 0, environment: 0 },
      });
      // The tool output has no sampling log-prob: stored as 0; the sampled tokens keep theirs.
      expect(record.logprobs!.slice(16, 28)).toEqual(Array(12).fill(0));
      expect([...record.logprobs!.slice(0, 16), ...record.logprobs!.slice(28)]).toEqual(Array(22).fill(-0.5));
    }
  });

  it('a real step on the cold start: the spans tile the completion and agree with the loss mask', async () => {
    const ctx = await buildContext(
      rlConfigSchema.parse({
        seed: 4,
        init: { checkpoint: 'examples/checkpoints/demo-cold' },
        tasks: [{ task: 'addition', difficulties: [3] }],
        poolSize: 4,
        rollout: { groupSize: 4, maxTokens: 64, environment: { name: 'tag-tools', limits: { maxTurns: 3 } } },
        train: { steps: 1, batchSize: 2, learningRate: 1e-4 },
        policy: { workers: 1 },
      }),
    );
    try {
      const report = await rlStep(ctx, 1, 1e-4);
      const rollouts = report.groups.flatMap((group: SampledGroup) => group.rollouts);
      const records = roundTrip(
        sampleRecords(report.groups, 100, { tokenizer: ctx.policy.tokenizer, scaffold: 'identity' }),
      );
      expect(records).toHaveLength(8);
      records.forEach((record, k) => {
        const { tokens, lossMask, episode } = rollouts[k];
        const stored = record.episode!;
        expect(stored.turns).toHaveLength(episode!.turns.length);
        expect(stored.end).toBe(episode!.end);
        let at = 0;
        for (const turn of stored.turns) {
          expect(turn.action[0]).toBe(at);
          expect(turn.output[0]).toBe(turn.action[1]);
          for (let t = turn.action[0]; t < turn.action[1]; t++) expect(lossMask![t]).toBe(1);
          for (let t = turn.output[0]; t < turn.output[1]; t++) {
            expect(lossMask![t]).toBe(0);
            expect(record.logprobs![t]).toBe(0);
          }
          at = turn.output[1];
        }
        expect(at).toBe(tokens.length);
        expect(record.tokens).toHaveLength(tokens.length);
      });
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);

  it('cuts long error messages and keeps single-turn samples without an episode', () => {
    const stored = sampleEpisode({
      turns: [
        {
          start: 0,
          actionTokens: 3,
          observationTokens: 2,
          observationTokensBefore: 9,
          reward: 0.5,
          stopReason: 'stop',
          error: { kind: 'tool', message: 'x'.repeat(5000) },
        },
      ],
      end: 'environment_error',
      environmentError: 'y'.repeat(5000),
      errors: { parse: 0, tool: 1, environment: 1 },
    });
    expect(stored.turns[0]).toMatchObject({ action: [0, 3], output: [3, 5], outputTokensBefore: 9 });
    expect(stored.turns[0].error!.message).toHaveLength(MAX_ERROR_CHARS);
    expect(stored.environmentError).toHaveLength(MAX_ERROR_CHARS);
    const [single] = roundTrip([{ problemId: 'p', prompt: 'q', completion: 'c', reward: 0 }]);
    expect(single.episode).toBeUndefined();
  });
});
