// The run component `environment` with a `remote` block, against the stdlib-only toy ORS server
// (src/testing/environments/ors_toy_server.py): an RL step whose members call the server's calc and
// submit tools trains on the server's rewards (reward: environment) or on the run's (reward: run); a
// server that does not serve the environment fails the run's start; a real run on the shipped cold start
// goes through the whole train path.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../../core/policy.ts';
import type { Reward, RewardInput } from '../../../core/reward.ts';
import { CharTokenizer } from '../../../policy/tokenizer.ts';
import {
  closedPort,
  startToyOrsServer,
  type ToyOrsServer,
} from '../../../testing/environments/ors-server.ts';
import { perRow } from '../../../testing/policy/test-helpers.ts';
import { stubRlContext } from '../../../testing/training/rl/test-context.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { rlStep } from '../../rl/step.ts';
import { train } from '../../rl/train.ts';
import { environmentComponent } from './component.ts';

const tokenizer = new CharTokenizer([
  '\n',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
]);

let server: ToyOrsServer;
beforeAll(async () => {
  server = await startToyOrsServer();
});
afterAll(async () => {
  await server?.stop();
});

/** calc on the problem's sum, then submit the output: right for even members, one off for odd ones. */
function toolPolicy(): PolicyBackend {
  let member = 0;
  const policy = {
    tokenizer,
    contextLength: 128,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      expect(options.stop).toEqual(['</calc>', '</submit>']);
      return prompts.map((prompt) => {
        const context = tokenizer.decode(prompt);
        const output = /<out>(\d+)<\/out>$/.exec(context);
        const answer = output ? Number(output[1]) + (member++ % 2) : 0;
        const text = output ? `<submit>${answer}</submit>` : `<calc>${/\d+\+\d+/.exec(context)?.[0]}</calc>`;
        const tokens = tokenizer.encode(text);
        const logprobs = tokens.map(() => -1);
        return [{ tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: 'stop' }];
      });
    },
    forwardBackward: async () => ({ loss: 0, logprobs: [], tokens: 0 }),
    optimStep: async () => ({ gradNorm: 0, step: 1 }),
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return policy;
}

const halfReward: Reward = {
  name: 'half',
  score: async (inputs: readonly RewardInput[]) =>
    inputs.map(() => ({ reward: 0.5, components: {}, reason: '' })),
};

async function stepWith(environment: Record<string, unknown>) {
  const ctx = stubRlContext({ policy: toolPolicy(), reward: halfReward, groupSize: 2, algorithm: {} });
  ctx.config = rlConfigSchema.parse({ ...ctx.config, rollout: { ...ctx.config.rollout, environment } });
  const component = await environmentComponent.create({ config: ctx.config } as never);
  ctx.components = [component!];
  const report = await rlStep(ctx, 1, 1e-3);
  await component!.close?.();
  return report;
}

describe('rollout.environment name: remote', () => {
  it('trains on the server rewards (reward: environment), or on the run reward (reward: run)', async () => {
    const block = { name: 'remote', url: server.url, env: 'arith' };
    const report = await stepWith(block);
    expect(report.metrics['env/tool_calls_mean']).toBe(2);
    expect(report.metrics['env/end/done']).toBe(1);
    for (const group of report.groups) {
      expect(group.completions[0]).toMatch(/^<calc>\d\+\d<\/calc><out>\d+<\/out><submit>\d+<\/submit>$/);
      expect(group.rewards).toEqual([1, 0]);
      expect(group.results[0].components).toEqual({ environment: 1 });
    }
    const byRun = await stepWith({ ...block, reward: 'run' });
    for (const group of byRun.groups) expect(group.rewards).toEqual([0.5, 0.5]);
  });

  it('fails the start when the server does not serve the environment or cannot be reached', async () => {
    const config = (url: string, env: string) =>
      rlConfigSchema.parse({
        tasks: [{ task: 'addition', difficulties: [1] }],
        rollout: { environment: { name: 'remote', url, env, retries: 0 } },
        train: { steps: 1, batchSize: 2, learningRate: 1e-3 },
      });
    await expect(
      environmentComponent.create({ config: config(server.url, 'chess') } as never),
    ).rejects.toThrow(`rollout.environment: the server at ${server.url} serves ["arith"], not 'chess' (env)`);
    const url = `http://127.0.0.1:${await closedPort()}`;
    await expect(environmentComponent.create({ config: config(url, 'arith') } as never)).rejects.toThrow(
      ConfigError,
    );
    expect(() => config('ftp://example.com', 'arith')).toThrow();
  });

  it('runs on the shipped cold start through the train path', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'remote-env-run-'));
    const result = await train(
      rlConfigSchema.parse({
        name: 'remote-env',
        runsDir,
        seed: 4,
        init: { checkpoint: 'examples/checkpoints/demo-cold' },
        tasks: [{ task: 'addition', difficulties: [1] }],
        poolSize: 8,
        rollout: {
          groupSize: 2,
          maxTokens: 32,
          environment: { name: 'remote', url: server.url, env: 'arith', limits: { maxTurns: 2 } },
        },
        train: { steps: 1, batchSize: 2, learningRate: 1e-4 },
        eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
        policy: { workers: 1 },
      }),
      {},
    );
    const rows = readFileSync(join(result.runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, number>)
      .filter((row) => row['env/turns_mean'] !== undefined);
    expect(rows).toHaveLength(1);
    expect(rows[0]['env/errors/environment']).toBe(0);
  }, 60_000);
});
