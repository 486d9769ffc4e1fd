// Tag tools for the character model (tag-tools.ts): a calculator call and its output in the episode,
// graded at the end by the task's verifier; parse and tool errors reported to the model and counted;
// the conformance suite on the environment.
import { describe, expect, it } from 'vitest';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { CharTokenizer } from '../policy/tokenizer.ts';
import { addition } from '../tasks/addition.ts';
import { promptTokens } from '../tasks/format.ts';
import { perRow } from '../testing/policy/test-helpers.ts';
import { checkEnvironment } from './conformance.ts';
import { runEpisodes } from './episode.ts';
import { parseEpisodeLimits } from './limits.ts';
import { TagToolEnvironment } from './tag-tools.ts';
import { calculator } from './tools/calculator.ts';

/** Every printable ASCII character and newline, as the shipped checkpoints' tokenizers have. */
const tokenizer = new CharTokenizer([
  '\n',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
]);

/** A policy that answers each turn with the next of `turns` (stop strings applied as the sampler does). */
function scripted(turns: string[]): PolicyBackend {
  let call = 0;
  const policy = {
    tokenizer,
    contextLength: 256,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      const text = turns[call++] ?? '';
      const stop = (options.stop ?? []).find((s) => text.endsWith(s));
      const tokens = [...tokenizer.encode(text), ...(stop ? [] : [tokenizer.eos])];
      return prompts.map(() => [
        {
          tokens,
          text,
          logprobs: tokens.map(() => -1),
          samplingLogprobs: tokens.map(() => -1),
          stopReason: stop ? 'stop' : 'eos',
        },
      ]);
    },
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return policy;
}

const problem = addition.generate(new Rng(3), 7);
const environment = () =>
  new TagToolEnvironment({
    tokenizer,
    prompt: promptTokens(tokenizer, problem),
    tools: [calculator],
    grade: (completion) => (addition.verify(problem, completion).correct ? 1 : 0),
  });
const limits = parseEpisodeLimits({});
const sampling = { temperature: 1, topP: 1, seed: 1 };

describe('tag tools', () => {
  it('runs a calculator call, shows its output, and grades the whole completion', async () => {
    const [left, right] = problem.prompt.match(/\d+/g) as string[];
    const sum = (BigInt(left) + BigInt(right)).toString();
    const policy = scripted([`<calc>${left}+${right}</calc>`, `\nA: ${sum}`]);
    const [episode] = await runEpisodes(policy, [environment()], { limits, ...sampling });
    expect(episode.end).toBe('done');
    expect(episode.return).toBe(1);
    expect(episode.metrics).toEqual({ tool_calls: 1, 'tool_calls/calc': 1 });
    const written = episode.tokens.filter((_, i) => episode.mask[i] === 0);
    expect(tokenizer.decode(written)).toBe(`${problem.prompt}<out>${sum}</out>`);
    const wrong = await runEpisodes(scripted([`\nA: ${sum}1`]), [environment()], { limits, ...sampling });
    expect(wrong[0].return).toBe(0);
  });

  it('reports a closing tag without its opening one as a parse error, a failing tool as a tool error', async () => {
    const [parse] = await runEpisodes(scripted(['1+2</calc>', 'A: 3']), [environment()], {
      limits,
      ...sampling,
    });
    expect(parse.errors).toEqual({ parse: 1, tool: 0, environment: 0 });
    expect(tokenizer.decode(parse.tokens)).toContain('<out>error: </calc> without <calc></out>');
    const [tool] = await runEpisodes(scripted(['<calc>1+</calc>', 'A: 3']), [environment()], {
      limits,
      ...sampling,
    });
    expect(tool.errors).toEqual({ parse: 0, tool: 1, environment: 0 });
    expect(tokenizer.decode(tool.tokens)).toContain('<out>error: expected a number at character 3 of');
    const [ended] = await runEpisodes(scripted(['</calc>', 'A: 3']), [environment()], {
      limits: parseEpisodeLimits({ parseErrors: 'zero' }),
      ...sampling,
    });
    expect([ended.end, ended.return, ended.turns.length]).toEqual(['parse_error', 0, 1]);
  });

  it('passes the environment conformance suite', async () => {
    const report = await checkEnvironment(environment, { tokenizer, name: 'tag-tools' });
    expect(report.checks).toContain('a fresh environment starts the same way');
    expect(report.checks).toContain('a step ending at "</calc>": reward is finite');
  });

  it('the conformance suite fails an environment that is not deterministic or answers garbage', async () => {
    let calls = 0;
    await expect(
      checkEnvironment(
        () => ({
          initialObservation: async () => ({ tokens: [tokenizer.bos, 3 + (calls++ % 2)] }),
          step: async () => ({ reward: 0, done: true }),
        }),
        { tokenizer },
      ),
    ).rejects.toThrow(/a fresh environment starts the same way/);
    await expect(
      checkEnvironment(
        () => ({
          initialObservation: async () => ({ tokens: [tokenizer.bos] }),
          step: async () => ({ reward: Number.NaN, done: true }),
        }),
        { tokenizer },
      ),
    ).rejects.toThrow(/reward is finite/);
  });
});
