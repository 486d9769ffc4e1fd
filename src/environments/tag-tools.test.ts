// Tag tools for the character model (tag-tools.ts): a calculator call and its output in the episode,
// graded at the end by the task's verifier; parse and tool errors reported to the model and counted;
// the conformance suite on the environment.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { addition } from '../tasks/addition.ts';
import { promptTokens } from '../tasks/format.ts';
import { printableTokenizer, scriptedTurns } from '../testing/environments/scripted-turns.ts';
import { checkEnvironment } from './conformance.ts';
import { runEpisodes } from './episode.ts';
import { parseEpisodeLimits } from './limits.ts';
import { TagToolEnvironment } from './tag-tools.ts';
import { calculator } from './tools/calculator.ts';

const tokenizer = printableTokenizer();

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
    const policy = scriptedTurns(tokenizer, [`<calc>${left}+${right}</calc>`, `\nA: ${sum}`]);
    const [episode] = await runEpisodes(policy, [environment()], { limits, ...sampling });
    expect(episode.end).toBe('done');
    expect(episode.return).toBe(1);
    expect(episode.metrics).toEqual({ tool_calls: 1, 'tool_calls/calc': 1 });
    const written = episode.tokens.filter((_, i) => episode.mask[i] === 0);
    expect(tokenizer.decode(written)).toBe(`${problem.prompt}<out>${sum}</out>`);
    const wrong = await runEpisodes(scriptedTurns(tokenizer, [`\nA: ${sum}1`]), [environment()], {
      limits,
      ...sampling,
    });
    expect(wrong[0].return).toBe(0);
  });

  it('reports a closing tag without its opening one as a parse error, a failing tool as a tool error', async () => {
    const [parse] = await runEpisodes(scriptedTurns(tokenizer, ['1+2</calc>', 'A: 3']), [environment()], {
      limits,
      ...sampling,
    });
    expect(parse.errors).toEqual({ parse: 1, tool: 0, environment: 0 });
    expect(tokenizer.decode(parse.tokens)).toContain('<out>error: </calc> without <calc></out>');
    const [tool] = await runEpisodes(scriptedTurns(tokenizer, ['<calc>1+</calc>', 'A: 3']), [environment()], {
      limits,
      ...sampling,
    });
    expect(tool.errors).toEqual({ parse: 0, tool: 1, environment: 0 });
    expect(tokenizer.decode(tool.tokens)).toContain('<out>error: expected a number at character 3 of');
    const [ended] = await runEpisodes(scriptedTurns(tokenizer, ['</calc>', 'A: 3']), [environment()], {
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
