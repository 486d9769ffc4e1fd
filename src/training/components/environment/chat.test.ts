// The run component `environment` with a `chat` block over the real Qwen3 tokenizer and template: an RL
// step whose members call calc in a Hermes `<tool_call>` and then answer sends the backend data whose
// weights are zero exactly on the prompt and the tool-response suffix (Qwen3's rendering of the tool
// message, written by hand in qwen3Suffix) and nonzero on every sampled token; a policy whose tokenizer
// has no chat template is refused at the run's start, naming the variant and the tokenizer.
import { describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend } from '../../../core/policy.ts';
import type { Reward, RewardInput } from '../../../core/reward.ts';
import { CharTokenizer } from '../../../policy/tokenizer.ts';
import { qwen3Suffix, qwen3Tokenizer, scriptedChatPolicy } from '../../../testing/chat/test-helpers.ts';
import { stubRlContext } from '../../../testing/training/rl/test-context.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { rlStep } from '../../rl/step.ts';
import { environmentComponent } from './component.ts';

const tokenizer = qwen3Tokenizer();
const call = '<tool_call>\n{"name": "calc", "arguments": {"expression": "1+2"}}\n</tool_call>';

/** Where `part` first occurs in `tokens` at or after `from`, or -1. */
function indexOf(tokens: readonly number[], part: readonly number[], from: number): number {
  for (let i = from; i + part.length <= tokens.length; i++)
    if (part.every((token, k) => tokens[i + k] === token)) return i;
  return -1;
}

describe("rollout.environment 'chat'", () => {
  it('masks the tool-response suffix out of the loss and trains the sampled tokens', async () => {
    // Turn 1 of every member: a calc call; turn 2: an answer, right for even members.
    let member = 0;
    const { policy } = scriptedChatPolicy(tokenizer, (prompt) =>
      tokenizer.decode(prompt, { keepSpecialTokens: true }).includes('<tool_response>')
        ? { text: member++ % 2 === 0 ? 'The answer is 3' : 'The answer is 4', end: 'eos' }
        : { text: call, end: 'eos' },
    );
    const sent: Datum[] = [];
    Object.assign(policy, {
      forwardBackward: async (data: Datum[]) => {
        sent.push(...data);
        return { loss: 0, logprobs: [], tokens: 0 };
      },
      optimStep: async () => ({ gradNorm: 0, step: 1 }),
    });
    const seen: string[] = [];
    const reward: Reward = {
      name: 'stub',
      score: async (inputs: readonly RewardInput[]) =>
        inputs.map((input) => {
          seen.push(input.completion);
          return { reward: input.completion.endsWith('answer is 3') ? 1 : 0, components: {}, reason: '' };
        }),
    };
    const ctx = stubRlContext({ policy, reward, groupSize: 2, algorithm: {} });
    ctx.config = rlConfigSchema.parse({
      ...ctx.config,
      rollout: { ...ctx.config.rollout, environment: { name: 'chat', tools: ['calc'] } },
    });
    const component = await environmentComponent.create({ config: ctx.config, policy } as never);
    ctx.components = [component!];
    const report = await rlStep(ctx, 1, 1e-3);
    expect(report.metrics['env/turns_mean']).toBe(2);
    expect(report.metrics['env/tool_calls_mean']).toBe(1);
    expect(report.metrics['env/end/done']).toBe(1);
    // The run's reward graded the whole completion: the call, the tool's output, the answer.
    expect(seen).toHaveLength(4);
    for (const completion of seen) {
      expect(completion.startsWith(call)).toBe(true);
      expect(completion).toContain('<tool_response>\n3\n</tool_response>');
    }
    expect(sent.length).toBe(4);
    const suffix = tokenizer.encode(qwen3Suffix([{ role: 'tool', content: '3' }]));
    const callTokens = [...tokenizer.encode(call), tokenizer.eos];
    for (const datum of sent) {
      const text = tokenizer.decode(datum.tokens, { keepSpecialTokens: true });
      // The context is the template's rendering of the problem with the tools prompt.
      expect(text.startsWith('<|im_start|>system\n')).toBe(true);
      expect(text).toContain('"name": "calc"');
      const callAt = indexOf(datum.tokens, callTokens, 0);
      const suffixAt = callAt + callTokens.length;
      expect(callAt).toBeGreaterThan(0);
      expect(datum.tokens.slice(suffixAt, suffixAt + suffix.length)).toEqual(suffix);
      expect(datum.tokens.at(-1)).toBe(tokenizer.eos);
      // weights[t] is for predicting tokens[t + 1]: zero on the prompt and on the suffix, nonzero elsewhere.
      datum.weights.forEach((weight, t) => {
        const predicted = t + 1;
        const written = predicted < callAt || (predicted >= suffixAt && predicted < suffixAt + suffix.length);
        expect({ predicted, zero: weight === 0 }).toEqual({ predicted, zero: written });
      });
    }
  });

  it('refuses a policy whose tokenizer has no chat template at the run start', async () => {
    const policy = { tokenizer: new CharTokenizer(['a']), contextLength: 128 } as unknown as PolicyBackend;
    const reward: Reward = { name: 'stub', score: async () => [] };
    const ctx = stubRlContext({ policy, reward, groupSize: 2, algorithm: {} });
    const config = rlConfigSchema.parse({
      ...ctx.config,
      rollout: { ...ctx.config.rollout, environment: { name: 'chat' } },
    });
    await expect(environmentComponent.create({ config, policy } as never)).rejects.toThrow(
      /rollout\.environment 'chat'.*CharTokenizer/,
    );
  });
});
