// Per-turn credit in the training loop (turn-credit.ts, the environment block's `credit: turn`): a stub
// policy's calculator episodes of known turns through the real rlStep, the weights sent to
// forwardBackward against per-turn advantages computed by hand (0 on every tool output); the remote
// variant's per-call rewards from the toy ORS server; `credit: episode` (the default) sends the same data
// as a block without the option; the config's refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend, SampledSequence, SampleOptions } from '../../../core/policy.ts';
import type { Reward, RewardInput } from '../../../core/reward.ts';
import { CharTokenizer } from '../../../policy/tokenizer.ts';
import { startToyOrsServer, type ToyOrsServer } from '../../../testing/environments/ors-server.ts';
import { perRow } from '../../../testing/policy/test-helpers.ts';
import { stubRlContext } from '../../../testing/training/rl/test-context.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { validateRlConfig } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
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

/** A stub backend: `answer` picks each turn's action from the context; forwardBackward's data is kept. */
function stubPolicy(answer: (context: string, nextRow: () => number) => { text: string; eos: boolean }) {
  const sent: Datum[] = [];
  let row = 0;
  const policy = {
    tokenizer,
    contextLength: 256,
    async sample(prompts: number[][], _options: SampleOptions): Promise<SampledSequence[][]> {
      return prompts.map((prompt) => {
        const { text, eos } = answer(tokenizer.decode(prompt), () => row++);
        const tokens = [...tokenizer.encode(text), ...(eos ? [tokenizer.eos] : [])];
        const logprobs = tokens.map(() => -1);
        return [{ tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: eos ? 'eos' : 'stop' }];
      });
    },
    async forwardBackward(data: Datum[]) {
      sent.push(...data);
      return { loss: 0, logprobs: [], tokens: 0 };
    },
    optimStep: async () => ({ gradNorm: 0, step: 1 }),
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return { policy, sent };
}

/**
 * Member 0 of a group: calc 1+2, then 'A: 3' (graded 1). Member 1: 'A: 4' at once (0). Member 2: calc 2+2,
 * calc 4+1, then 'A: 5' (0.5).
 */
function calculatorAnswer(context: string, nextRow: () => number): { text: string; eos: boolean } {
  if (context.endsWith('<out>3</out>')) return { text: '\nA: 3', eos: true };
  if (context.endsWith('<out>4</out>')) return { text: '<calc>4+1</calc>', eos: false };
  if (context.endsWith('<out>5</out>')) return { text: '\nA: 5', eos: true };
  const member = nextRow() % 3;
  if (member === 0) return { text: '<calc>1+2</calc>', eos: false };
  if (member === 1) return { text: '\nA: 4', eos: true };
  return { text: '<calc>2+2</calc>', eos: false };
}

const gradedReward: Reward = {
  name: 'stub',
  score: async (inputs: readonly RewardInput[]) =>
    inputs.map(({ completion }) => ({
      reward: completion.endsWith('A: 3') ? 1 : completion.endsWith('A: 5') ? 0.5 : 0,
      components: {},
      reason: '',
    })),
};

/** One rlStep with `environment` as the block, a loss whose weights are −A/(sequences) at ratio 1. */
async function stepWith(
  environment: Record<string, unknown>,
  answer: typeof calculatorAnswer,
  reward: Reward,
  groupSize: number,
) {
  const { policy, sent } = stubPolicy(answer);
  const ctx = stubRlContext({
    policy,
    reward,
    groupSize,
    algorithm: {},
    lossOptions: { aggregation: 'seq-mean-token-sum' },
  });
  ctx.config = rlConfigSchema.parse({ ...ctx.config, rollout: { ...ctx.config.rollout, environment } });
  const component = await environmentComponent.create({ config: ctx.config } as never);
  ctx.components = [component!];
  const report = await rlStep(ctx, 1, 1e-3);
  await component!.close?.();
  return { report, sent };
}

/** [text, advantage] pieces of a completion → the weight of predicting each of its tokens (EOS after `eos` pieces). */
function expectedWeights(pieces: readonly [string, number, boolean?][], sequences: number): number[] {
  return pieces.flatMap(([text, advantage, eos]) =>
    [...tokenizer.encode(text), ...(eos ? [tokenizer.eos] : [])].map(() =>
      advantage === 0 ? 0 : -advantage / sequences,
    ),
  );
}

/** The completion's weights of a datum: the ones after the context (`completion` tokens long). */
function completionWeights(datum: Datum, completionTokens: number): number[] {
  return datum.weights.slice(datum.weights.length - completionTokens);
}

describe('credit: turn', () => {
  it('weights each turn’s sampled tokens by its hand-computed leave-one-out advantage, 0 on outputs', async () => {
    const { report, sent } = await stepWith(
      { name: 'tag-tools', credit: 'turn', callFormatReward: 0.1, callFormatCap: 0.15 },
      calculatorAnswer,
      gradedReward,
      3,
    );
    // Turn rewards (call rewards 0.1, then 0.05 to the cap; the grade on the last turn):
    //   m0 [0.1, 1], m1 [0], m2 [0.1, 0.05, 0.5] → reward-to-go m0 [1.1, 1], m1 [0], m2 [0.65, 0.55, 0.5].
    // Turn 0: m0 1.1 − (0 + 0.65)/2 = 0.775, m1 0 − (1.1 + 0.65)/2 = −0.875, m2 0.65 − (1.1 + 0)/2 = 0.1.
    // Turn 1: m0 1 − 0.55 = 0.45, m2 0.55 − 1 = −0.45. Turn 2: m2 alone, no baseline: 0.5.
    const sequences = 6; // 2 groups × 3 members, one minibatch; seq-mean-token-sum: weight = −A / 6
    const expected = new Map<string, number[]>([
      [
        '<calc>1+2</calc><out>3</out>\nA: 3',
        expectedWeights(
          [
            ['<calc>1+2</calc>', 0.775],
            ['<out>3</out>', 0],
            ['\nA: 3', 0.45, true],
          ],
          sequences,
        ),
      ],
      ['\nA: 4', expectedWeights([['\nA: 4', -0.875, true]], sequences)],
      [
        '<calc>2+2</calc><out>4</out><calc>4+1</calc><out>5</out>\nA: 5',
        expectedWeights(
          [
            ['<calc>2+2</calc>', 0.1],
            ['<out>4</out>', 0],
            ['<calc>4+1</calc>', -0.45],
            ['<out>5</out>', 0],
            ['\nA: 5', 0.5, true],
          ],
          sequences,
        ),
      ],
    ]);
    expect(sent).toHaveLength(sequences);
    const seen = new Map<string, number>();
    for (const datum of sent) {
      const text = tokenizer.decode(datum.tokens);
      const [completion, weights] = [...expected].find(([key]) => text.endsWith(key)) ?? [];
      expect(completion, text).toBeDefined();
      const got = completionWeights(datum, weights!.length);
      got.forEach((weight, t) => {
        expect(weight, `${completion} token ${t}`).toBeCloseTo(weights![t], 12);
      });
      // Nothing of the context is trained.
      expect(datum.weights.slice(0, datum.weights.length - weights!.length).every((w) => w === 0)).toBe(true);
      seen.set(completion!, (seen.get(completion!) ?? 0) + 1);
    }
    expect([...seen.values()]).toEqual([2, 2, 2]);
    // |A| over the 6 turns of a group: (0.775 + 0.45 + 0.875 + 0.1 + 0.45 + 0.5) / 6 = 0.525.
    expect(report.metrics['env/credit/turn_adv_abs_mean']).toBeCloseTo(0.525, 12);
    expect(report.metrics['env/credit/unbaselined_turn_frac']).toBeCloseTo(1 / 6, 12);
    expect(report.metrics['env/credit/call_reward_mean']).toBeCloseTo((0.1 + 0 + 0.15) / 3, 12);
    // The run store records the token-mean the loss used (sample-records.ts).
    expect(report.groups[0].advantageKind).toBe('token-mean');
  });

  it('takes the remote server’s per-call rewards as the turns’ rewards, not twice', async () => {
    // calc (reward 0), then submit the output (reward 1) for even members, one off (0) for odd ones.
    const answer = (context: string, nextRow: () => number) => {
      const output = /<out>(\d+)<\/out>$/.exec(context);
      if (!output) return { text: `<calc>${/\d+\+\d+/.exec(context)?.[0]}</calc>`, eos: false };
      return { text: `<submit>${Number(output[1]) + (nextRow() % 2)}</submit>`, eos: false };
    };
    const block = { name: 'remote', url: server.url, env: 'arith', credit: 'turn' };
    const { report, sent } = await stepWith(block, answer, gradedReward, 2);
    for (const group of report.groups) expect(group.rewards).toEqual([1, 0]);
    // Turn rewards [0, 1] and [0, 0]; reward-to-go [1, 1] and [0, 0]: A = ±1 on both turns. Counting the
    // server's rewards on top of the return would give the right member [2, 1] − [0, 0].
    expect(sent).toHaveLength(4);
    for (const datum of sent) {
      const text = tokenizer.decode(datum.tokens);
      const match = /(<calc>\d\+\d<\/calc>)(<out>\d+<\/out>)(<submit>\d+<\/submit>)$/.exec(text);
      expect(match, text).not.toBeNull();
      const [, calc, out, submit] = match!;
      const right = Number(/<submit>(\d+)/.exec(submit)![1]) === Number(/<out>(\d+)/.exec(out)![1]);
      const advantage = right ? 1 : -1;
      const weights = expectedWeights(
        [
          [calc, advantage],
          [out, 0],
          [submit, advantage],
        ],
        4,
      );
      expect(completionWeights(datum, weights.length)).toEqual(weights);
    }
  });

  it('credit: episode (the default) sends the data of a block without the option', async () => {
    const plain = await stepWith({ name: 'tag-tools' }, calculatorAnswer, gradedReward, 3);
    const episode = await stepWith(
      { name: 'tag-tools', credit: 'episode' },
      calculatorAnswer,
      gradedReward,
      3,
    );
    expect(episode.sent).toEqual(plain.sent);
    expect(plain.report.metrics['env/credit/turn_adv_abs_mean']).toBeUndefined();
    // Every sampled token of a member shares one advantage there: member 0's two turns (0.775 and 0.45
    // under credit: turn) get one weight, GRPO's (1 − 0.5) over the std, on its 16 + 6 sampled tokens.
    const member = plain.sent.find((datum) => tokenizer.decode(datum.tokens).endsWith('\nA: 3'))!;
    const weights = completionWeights(member, 16 + 12 + 6);
    expect(weights.slice(16, 28)).toEqual(Array(12).fill(0));
    const sampled = [...weights.slice(0, 16), ...weights.slice(28)];
    expect(new Set(sampled).size).toBe(1);
    expect(sampled[0]).toBeLessThan(0);
  });

  it('is an option of both variants, default episode; a call reward needs credit: turn', () => {
    const base = {
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 1, batchSize: 2, learningRate: 1e-3 },
    };
    const parse = (environment: object) =>
      rlConfigSchema.parse({ ...base, rollout: { environment } }).rollout.environment;
    expect(parse({ name: 'tag-tools' })).toMatchObject({
      credit: 'episode',
      callFormatReward: 0,
      callFormatCap: 0.2,
    });
    expect(parse({ name: 'remote', url: 'http://127.0.0.1:1', env: 'arith', credit: 'turn' })).toMatchObject({
      credit: 'turn',
    });
    expect(() => parse({ name: 'tag-tools', credit: 'token' })).toThrow();
    expect(() => parse({ name: 'tag-tools', callFormatReward: -1 })).toThrow();
    const config = (environment: object) => rlConfigSchema.parse({ ...base, rollout: { environment } });
    expect(() => validateRlConfig(config({ name: 'tag-tools', callFormatReward: 0.1 }))).toThrow(
      /callFormatReward .* needs `credit: turn`/,
    );
    // (It fails further on, for want of a checkpoint: not for the call reward.)
    expect(() =>
      validateRlConfig(config({ name: 'tag-tools', credit: 'turn', callFormatReward: 0.1 })),
    ).toThrow(/init\.checkpoint/);
  });
});
