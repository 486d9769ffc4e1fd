// The run component `environment` (rollout.environment): an RL step whose members are calculator
// episodes sends the backend data whose weights are zero on every tool-output token and nonzero on the
// sampled ones; the block's refusals; and a real run on the shipped cold start.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import type { Datum, PolicyBackend, SampledSequence, SampleOptions } from '../../../core/policy.ts';
import type { Reward, RewardInput } from '../../../core/reward.ts';
import { CharTokenizer } from '../../../policy/tokenizer.ts';
import { perRow } from '../../../testing/policy/test-helpers.ts';
import { stubRlContext } from '../../../testing/training/rl/test-context.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { train } from '../../rl/train.ts';
import { environmentComponent } from './component.ts';

const tokenizer = new CharTokenizer([
  '\n',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
]);

describe('rollout.environment', () => {
  it('masks the tool outputs out of the loss and trains the sampled tokens', async () => {
    const sent: Datum[] = [];
    // Turn 1 of every member: a calculator call; turn 2: an answer, right for even members.
    let member = 0;
    const policy = {
      tokenizer,
      contextLength: 128,
      async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
        return prompts.map((prompt) => {
          const call = !tokenizer.decode(prompt).includes('<out>');
          const text = call ? '<calc>1+2</calc>' : member++ % 2 === 0 ? '\nA: 3' : '\nA: 4';
          const tokens = [...tokenizer.encode(text), ...(call ? [] : [tokenizer.eos])];
          expect(options.stop).toEqual(['</calc>']);
          return [
            {
              tokens,
              text,
              logprobs: tokens.map(() => -1),
              samplingLogprobs: tokens.map(() => -1),
              stopReason: call ? 'stop' : 'eos',
            },
          ];
        });
      },
      async forwardBackward(data: Datum[]) {
        sent.push(...data);
        return { loss: 0, logprobs: [], tokens: 0 };
      },
      async optimStep() {
        return { gradNorm: 0, step: 1 };
      },
    } as unknown as PolicyBackend;
    policy.sample = perRow(policy.sample.bind(policy));
    const reward: Reward = {
      name: 'stub',
      score: async (inputs: readonly RewardInput[]) =>
        inputs.map((input) => ({
          reward: input.completion.endsWith('A: 3') ? 1 : 0,
          components: {},
          reason: '',
        })),
    };
    const ctx = stubRlContext({ policy, reward, groupSize: 2, algorithm: {} });
    ctx.config = rlConfigSchema.parse({
      ...ctx.config,
      rollout: { ...ctx.config.rollout, environment: { name: 'tag-tools' } },
    });
    const component = await environmentComponent.create({ config: ctx.config } as never);
    ctx.components = [component!];
    const report = await rlStep(ctx, 1, 1e-3);
    expect(report.metrics['env/turns_mean']).toBe(2);
    expect(report.metrics['env/tool_calls_mean']).toBe(1);
    expect(report.metrics['env/end/done']).toBe(1);
    expect(sent.length).toBe(4);
    // The cost axis: sampling/tokens counts every token of the episodes, policy_tokens the sampled ones.
    const outputTokens = 4 * tokenizer.encode('<out>3</out>').length;
    expect(report.metrics['sampling/policy_tokens']).toBe(report.metrics['sampling/tokens'] - outputTokens);
    const output = tokenizer.encode('<out>3</out>');
    for (const datum of sent) {
      const text = tokenizer.decode(datum.tokens);
      expect(text).toContain('<calc>1+2</calc><out>3</out>\nA: ');
      // Find the output's tokens in the sequence: weights of predicting them are 0; the sampled ones are not.
      const at = datum.tokens.findIndex((_, i) => output.every((token, k) => datum.tokens[i + k] === token));
      expect(at).toBeGreaterThan(0);
      const outputWeights = datum.weights.slice(at - 1, at - 1 + output.length);
      expect(outputWeights).toEqual(Array(output.length).fill(0));
      const sampledWeights = [
        ...datum.weights.slice(at - 1 - tokenizer.encode('<calc>1+2</calc>').length, at - 1),
        ...datum.weights.slice(at - 1 + output.length),
      ];
      expect(sampledWeights.every((weight) => weight !== 0)).toBe(true);
    }
  });

  it('builds the search tool from a documents file once, and answers a search call in the episode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'environment-docs-'));
    const documents = join(dir, 'docs.jsonl');
    writeFileSync(
      documents,
      `${JSON.stringify({ id: 'v', title: 'Valda', text: 'The capital of Valda is Orin.' })}\n`,
    );
    const policy = {
      tokenizer,
      contextLength: 128,
      async sample(prompts: number[][]): Promise<SampledSequence[][]> {
        return prompts.map((prompt) => {
          const call = !tokenizer.decode(prompt).includes('<out>');
          const text = call ? '<search>capital Valda</search>' : '\nA: 3';
          const tokens = [...tokenizer.encode(text), ...(call ? [] : [tokenizer.eos])];
          const logprobs = tokens.map(() => -1);
          return [{ tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: call ? 'stop' : 'eos' }];
        });
      },
      forwardBackward: async () => ({ loss: 0, logprobs: [], tokens: 0 }),
      optimStep: async () => ({ gradNorm: 0, step: 1 }),
    } as unknown as PolicyBackend;
    policy.sample = perRow(policy.sample.bind(policy));
    const seen: string[] = [];
    const reward: Reward = {
      name: 'stub',
      score: async (inputs: readonly RewardInput[]) =>
        inputs.map((input) => {
          seen.push(input.completion);
          return { reward: 0, components: {}, reason: '' };
        }),
    };
    const ctx = stubRlContext({ policy, reward, groupSize: 2, algorithm: {} });
    ctx.config = rlConfigSchema.parse({
      ...ctx.config,
      rollout: {
        ...ctx.config.rollout,
        environment: { name: 'tag-tools', tools: ['search', 'calc'], documents },
      },
    });
    const component = await environmentComponent.create({ config: ctx.config } as never);
    ctx.components = [component!];
    const report = await rlStep(ctx, 1, 1e-3);
    expect(report.metrics['env/tool_calls_mean']).toBe(1);
    expect(
      seen.every((completion) => completion.includes('<out>Valda: The capital of Valda is Orin.</out>')),
    ).toBe(true);
    await component!.close?.();
  });

  it('refuses guidance that rewrites prompts and a teacher block, and unknown tools', () => {
    const base = {
      tasks: [{ task: 'addition', difficulties: [1] }],
      rollout: { environment: { name: 'tag-tools' } },
      train: { steps: 1, batchSize: 2, learningRate: 1e-3 },
    };
    expect(() => validateRlConfig(rlConfigSchema.parse({ ...base, guidance: { name: 'hints' } }))).toThrow(
      ConfigError,
    );
    expect(() =>
      rlConfigSchema.parse({ ...base, rollout: { environment: { name: 'tag-tools', tools: ['shell'] } } }),
    ).toThrow();
    expect(() => rlConfigSchema.parse({ ...base, rollout: { environment: { name: 'shell' } } })).toThrow();
    // tag-tools' search without a documents file searches each problem's own (search-facts).
    expect(() =>
      validateRlConfig(
        rlConfigSchema.parse({ ...base, rollout: { environment: { name: 'tag-tools', tools: ['search'] } } }),
      ),
    ).not.toThrow(/documents/);
  });

  it('runs on the shipped cold start: episodes, metrics, and the same run twice gives the same metrics', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'environment-run-'));
    const config = (name: string) =>
      rlConfigSchema.parse({
        name,
        runsDir,
        seed: 4,
        init: { checkpoint: 'examples/checkpoints/demo-cold' },
        tasks: [{ task: 'addition', difficulties: [3] }],
        poolSize: 20,
        rollout: { groupSize: 4, maxTokens: 64, environment: { name: 'tag-tools', limits: { maxTurns: 3 } } },
        train: { steps: 2, batchSize: 4, learningRate: 1e-4 },
        eval: { every: 0, problemsPerDifficulty: 4, samples: 1 },
        policy: { workers: 1 },
      });
    const rows = async (name: string) => {
      const result = await train(config(name), {});
      const all = readFileSync(join(result.runDir, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, number | string>);
      // The held-out evaluations (start and end) ran in the environment too: tool use is reported.
      const evaluations = all.filter((row) => row['eval/pass@1'] !== undefined);
      expect(evaluations.length).toBeGreaterThanOrEqual(1);
      expect(evaluations.every((row) => typeof row['eval/tools/call_rate'] === 'number')).toBe(true);
      return all
        .filter((row) => row['env/turns_mean'] !== undefined)
        .map(({ time: _time, ...row }) =>
          Object.fromEntries(Object.entries(row).filter(([key]) => !key.startsWith('perf/'))),
        );
    };
    const first = await rows('env-a');
    expect(first).toHaveLength(2);
    expect(first.every((row) => (row['env/turns_mean'] as number) >= 1)).toBe(true);
    expect(await rows('env-b')).toEqual(first);
  }, 120_000);
});
