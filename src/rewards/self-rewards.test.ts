// The self-rewards (self-confidence, self-consistency, synthesized-reference): values on hand-computed
// groups, the policy calls they make (on the real demo-cold checkpoint, one worker), that they never read
// the gold answer, and the config-time refusal when no policy is given.
// A scripted RewardPolicy (fixed texts) is used where the numbers must be hand-computable: it stands in
// for the model's randomness, not for any of our code; the real checkpoint covers the real call path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { RewardInput, RewardPolicy } from '../core/reward.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { promptTokens } from '../tasks/format.ts';
import { additionProblem } from '../testing/rewards/test-problems.ts';
import { rewards } from './index.ts';
import { LateBoundPolicy } from './self-policy.ts';

let demo: PolicyBackend;
beforeAll(async () => {
  demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
});
afterAll(async () => {
  await demo.close?.();
});

const inputsOf = (problem: Problem, group: string[], step = 0): RewardInput[] =>
  group.map((completion) => ({ problem, completion, group, step }));

/** Answers `texts` in turn to every requested sample (n per prompt), and records the calls. */
function scriptedPolicy(
  texts: string[],
): RewardPolicy & { calls: { prompts: number[][]; options: SampleOptions }[] } {
  let next = 0;
  const calls: { prompts: number[][]; options: SampleOptions }[] = [];
  return {
    calls,
    get tokenizer() {
      return demo.tokenizer;
    },
    contextLength: 128,
    async sample(prompts, options) {
      calls.push({ prompts, options });
      return prompts.map(() =>
        Array.from({ length: options.n }, (): SampledSequence => {
          const text = texts[next++ % texts.length];
          return { tokens: [], text, logprobs: [], samplingLogprobs: [], stopReason: 'eos' };
        }),
      );
    },
  };
}

describe('self-confidence', () => {
  it("form 'answer': the share of the group giving the same answer (no answer: 0), gold diagnostics", async () => {
    const reward = rewards.get('self-confidence')({ form: 'answer' });
    expect(reward.usesPolicy).toBe(false);
    const group = ['A:6', 'A:6', 'A:5', 'no answer'];
    const results = await reward.score(inputsOf(additionProblem('5'), group));
    expect(results.map((result) => result.reward)).toEqual([0.5, 0.5, 0.25, 0]);
    // The mode (6) is wrong: both completions that give it are confident-wrong, the lone right one is not
    // passed by the self-verdict (agreement 0), the unanswered one agrees (both fail).
    expect(results.map((result) => result.components.confident_wrong)).toEqual([1, 1, 0, 0]);
    expect(results.map((result) => result.components.self_gold_agreement)).toEqual([0, 0, 0, 1]);
    expect(results.map((result) => result.components.gold_correct)).toEqual([0, 0, 1, 0]);
    expect(results.map((result) => result.components.confidence_brier)).toEqual([0.25, 0.25, 0.5625, 0]);
  });

  it("form 'sequence' (RLSC): p(y|x) + α equals exp(Σ sampled log-probs) of the real policy", async () => {
    const problem = additionProblem('5');
    const prompt = promptTokens(demo.tokenizer, { ...problem, prompt: '12+34=\n' });
    const [samples] = await demo.sample([prompt], { n: 4, temperature: 1, topP: 1, maxTokens: 40, seed: 5 });
    const group = samples.map((sample) => sample.text);
    const late = new LateBoundPolicy();
    const reward = rewards.get('self-confidence')({ alpha: 0.1 }, { policy: late });
    expect(reward.usesPolicy).toBe(true);
    late.bind(demo);
    const results = await reward.score(inputsOf({ ...problem, prompt: '12+34=\n' }, group));
    const legacy = rewards.get('self-confidence')({ alpha: 0.1, eos: false }, { policy: late });
    const withoutEos = await legacy.score(inputsOf({ ...problem, prompt: '12+34=\n' }, group));
    expect(samples.filter((sample) => sample.stopReason === 'eos').length).toBeGreaterThan(0);
    samples.forEach((sample, i) => {
      // Sampled log-probs are log p at temperature 1, the last one EOS's when sampling stopped there: p(y|x)
      // of the finished response. eos: false leaves EOS out (the text does not carry it).
      const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
      if (sample.stopReason !== 'eos') return;
      expect(results[i].components.confidence).toBeCloseTo(Math.exp(sum(sample.logprobs)), 5);
      expect(results[i].reward).toBeCloseTo(Math.exp(sum(sample.logprobs)) + 0.1, 5);
      expect(withoutEos[i].components.confidence).toBeCloseTo(Math.exp(sum(sample.logprobs.slice(0, -1))), 5);
    });
  });

  it('the empty completion scores p(EOS | prompt), not 1 (the reward hack of eos: false)', async () => {
    const problem = additionProblem('5');
    const late = new LateBoundPolicy();
    late.bind(demo);
    const group = ['', 'A:5'];
    const [empty] = await rewards
      .get('self-confidence')({}, { policy: late })
      .score(inputsOf(problem, group));
    const prompt = promptTokens(demo.tokenizer, problem);
    const [logprobs] = await demo.forward([[...prompt, demo.tokenizer.eos]]);
    expect(empty.components.confidence).toBeCloseTo(Math.exp(logprobs[logprobs.length - 1]), 6);
    expect(empty.components.confidence).toBeLessThan(0.5);
    expect(empty.components.answered).toBe(0);
    const [hacked] = await rewards
      .get('self-confidence')({ eos: false }, { policy: late })
      .score(inputsOf(problem, group));
    expect(hacked.components.confidence).toBe(1);
  });

  it('refuses at config time without a policy, or with one that has no forward', () => {
    expect(() => rewards.get('self-confidence')({})).toThrow(ConfigError);
    const noForward = scriptedPolicy(['A:1']);
    expect(() => rewards.get('self-confidence')({}, { policy: noForward })).toThrow(/forward/);
  });
});

describe('self-consistency', () => {
  it('samples `cuts` continuations from the prompt + the first ⌊len·keepRate⌋ tokens (real policy)', async () => {
    const calls: number[][][] = [];
    const recording: RewardPolicy = {
      tokenizer: demo.tokenizer,
      contextLength: demo.contextLength,
      sample: (prompts, options) => {
        calls.push(prompts);
        expect(options.n).toBe(3);
        return demo.sample(prompts, options);
      },
    };
    const reward = rewards.get('self-consistency')({ cuts: 3, keepRate: 0.5 }, { policy: recording });
    const problem = { ...additionProblem('46'), prompt: '12+34=\n' };
    // Odd lengths (15 and 3 tokens), so ⌊·⌋ and ⌈·⌉ of half differ.
    const group = ['2+4=6\n1+3=4\nA:4', 'A:9'];
    const results = await reward.score(inputsOf(problem, group));
    const prompt = promptTokens(demo.tokenizer, problem);
    const expected = group.map((completion) => {
      const tokens = demo.tokenizer.encode(completion);
      return [...prompt, ...tokens.slice(0, Math.floor(tokens.length * 0.5))];
    });
    expect(calls.map((call) => call[0])).toEqual(expected);
    for (const result of results) {
      expect(result.reward).toBeCloseTo(0.3 * (3 - result.components.distinct), 10);
      expect(result.components.distinct).toBeGreaterThanOrEqual(1);
    }
  });

  it('batched per-prompt-seed sampling draws what one call per completion draws', async () => {
    const problem = { ...additionProblem('46'), prompt: '12+34=\n' };
    const group = ['2+4=6\n1+3=4\nA:46', '2+4=6\nA:6', 'A:4', '1+1=2\n3+3=6\n1+2=3\nA:9'];
    const perCall: RewardPolicy = {
      tokenizer: demo.tokenizer,
      contextLength: demo.contextLength,
      sample: (prompts, options) => demo.sample(prompts, options),
    };
    const batched = await rewards
      .get('self-consistency')({}, { policy: demo })
      .score(inputsOf(problem, group));
    const single = await rewards
      .get('self-consistency')({}, { policy: perCall })
      .score(inputsOf(problem, group));
    expect(batched).toEqual(single);
  });

  it('reward = 0.3 · (cuts − distinct answers), a missing answer being one more class', async () => {
    // Completion 1's continuations: 7, 7, 7, 7 (1 class); completion 2's: 7, 8, none, 8 (3 classes).
    // The kept text is the first ⌊8·0.8⌋ = 6 characters ('1234\nA'); continuations start a new line.
    const policy = scriptedPolicy(['\nA:7', '\nA:7', '\nA:7', '\nA:7', '\nA:7', '\nA:8', 'x', '\nA:8']);
    const reward = rewards.get('self-consistency')({}, { policy });
    const results = await reward.score(inputsOf(additionProblem('7'), ['1234\nA:7', '1234\nA:8']));
    expect(results[0].reward).toBeCloseTo(0.9, 10);
    expect(results[1].reward).toBeCloseTo(0.3, 10);
    expect(results.map((result) => result.components.agreement)).toEqual([1, 0.5]);
    // Self-verdict "agreement ≥ 1/2": both pass; only the first is right.
    expect(results.map((result) => result.components.confident_wrong)).toEqual([0, 1]);
  });

  it('keeps one token of context free when the kept prefix would fill it', async () => {
    const scripted = scriptedPolicy(['\nA:5']);
    const small: RewardPolicy = { ...scripted, tokenizer: demo.tokenizer, contextLength: 12 };
    const reward = rewards.get('self-consistency')({ keepRate: 1, cuts: 1 }, { policy: small });
    // [BOS] '2+3=\n' is 6 tokens: of the 9-token completion only 5 fit before the last free position.
    await reward.score(inputsOf(additionProblem('5'), ['2+3=5\nA:5']));
    expect(scripted.calls[0].prompts[0]).toHaveLength(11);
    expect(scripted.calls[0].options.maxTokens).toBe(1);
  });

  it('refuses at config time without a policy', () => {
    expect(() => rewards.get('self-consistency')({})).toThrow(ConfigError);
  });
});

describe('synthesized-reference', () => {
  it('grades each rollout against the answer the policy synthesised from the group', async () => {
    const policy = scriptedPolicy(['I think\nA:7']);
    const reward = rewards.get('synthesized-reference')({}, { policy });
    const group = ['A:7', 'A:5', '3+4=7\nA:7', 'none'];
    const results = await reward.score(inputsOf(additionProblem('5'), group));
    expect(results.map((result) => result.reward)).toEqual([1, 0, 1, 0]);
    // One synthesis per group; its prompt lists the group's rollouts after the problem.
    expect(policy.calls).toHaveLength(1);
    const text = demo.tokenizer.decode(policy.calls[0].prompts[0]);
    expect(text).toBe('2+3=\nR1:\nA:7\nR2:\nA:5\nR3:\n3+4=7\nA:7\nR4:\nnone\nreconcile:\n');
    // The reference (7) is wrong: the two rollouts that match it are confident-wrong.
    expect(results.map((result) => result.components.confident_wrong)).toEqual([1, 0, 1, 0]);
  });

  it('no answer in the reference: every rollout earns 0 with a reason', async () => {
    const reward = rewards.get('synthesized-reference')({}, { policy: scriptedPolicy(['babble']) });
    const results = await reward.score(inputsOf(additionProblem('5'), ['A:5', 'A:6']));
    expect(results.map((result) => [result.reward, result.reason])).toEqual([
      [0, 'no reference answer'],
      [0, 'no reference answer'],
    ]);
  });

  it('drops rollouts that do not fit the context, and runs on the real policy', async () => {
    const reward = rewards.get('synthesized-reference')({ maxTokens: 32 }, { policy: demo });
    const group = Array.from({ length: 8 }, (_, i) =>
      [`${i}+${i}=${2 * i}`, `${i}+${i}=${2 * i}`, `${i}+${i}=${2 * i}`, `A:${i}`].join('\n'),
    );
    const results = await reward.score(inputsOf(additionProblem('5'), group));
    const shown = results[0].components.rollouts_shown;
    expect(shown).toBeLessThan(8);
    expect(results.every((result) => Number.isFinite(result.reward))).toBe(true);
  });

  it('refuses at config time without a policy, and a template without its placeholders', () => {
    expect(() => rewards.get('synthesized-reference')({})).toThrow(ConfigError);
    expect(() =>
      rewards.get('synthesized-reference')({ template: '{prompt}' }, { policy: scriptedPolicy([]) }),
    ).toThrow(ConfigError);
  });
});

describe('gold-free: scrambling the gold answer leaves every self-reward unchanged', () => {
  const group = ['3+4=7\nA:7', 'A:7', 'A:5', 'x'];
  const cases: [string, object][] = [
    ['self-confidence', { form: 'answer' }],
    ['self-confidence', {}],
    ['self-consistency', { cuts: 2 }],
    ['synthesized-reference', { maxTokens: 24 }],
  ];
  it.each(cases)('%s %j', async (name, options) => {
    const problem = { ...additionProblem('7'), prompt: '3+4=\n' };
    const scrambled = { ...problem, answer: '12345', solution: 'A:12345' };
    const real = await rewards
      .get(name)(options, { policy: demo })
      .score(inputsOf(problem, group, 2));
    const fake = await rewards
      .get(name)(options, { policy: demo })
      .score(inputsOf(scrambled, group, 2));
    expect(fake.map((result) => result.reward)).toEqual(real.map((result) => result.reward));
  });
});
