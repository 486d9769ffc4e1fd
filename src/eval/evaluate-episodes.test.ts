// `curricula eval` in an environment (issue 30): each sample is an episode with tool calls, graded on the
// whole completion; the summary counts calls, the share of samples calling, pass@1 of those that call and
// errors, per level and overall. A checkpoint inside a run that trains with rollout.environment is
// evaluated in that environment unless told otherwise ('none').
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../core/policy.ts';
import { buildTools, environmentBlockSchema } from '../environments/block.ts';
import { CharTokenizer } from '../policy/tokenizer.ts';
import { RunStore } from '../runs/run-store.ts';
import { additionProblem } from '../tasks/addition.ts';
import { qwen3Tokenizer, scriptedChatPolicy } from '../testing/chat/test-helpers.ts';
import { perRow } from '../testing/policy/test-helpers.ts';
import { summarizeOutcomes } from './aggregate.ts';
import { evaluateFromConfig } from './evaluate-config.ts';
import { sampleEpisodesAndVerify } from './evaluate-episodes.ts';
import { formatEvalTable } from './format-table.ts';

const tokenizer = new CharTokenizer([
  '\n',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
]);
const block = environmentBlockSchema.parse({ name: 'tag-tools', tools: ['calc'] })!;

/**
 * Row r of a call answers by calling the calculator on its prompt when r is even (then copies the output),
 * and guesses 0 when odd; a second turn after a call copies the output seen.
 */
function halfCalling(): PolicyBackend {
  const policy = {
    tokenizer,
    contextLength: 256,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      return prompts.map((prompt, row) => {
        const context = tokenizer.decode(prompt);
        const output = /<out>(.*)<\/out>$/.exec(context)?.[1];
        const expression = context.split('\n')[0];
        const text =
          output !== undefined ? `\nA:${output}` : row % 2 === 0 ? `<calc>${expression}</calc>` : 'A:0';
        const stop = (options.stop ?? []).find((s) => text.endsWith(s));
        const tokens = [...tokenizer.encode(text), ...(stop ? [] : [tokenizer.eos])];
        const logprobs = tokens.map(() => -1);
        return [{ tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: stop ? 'stop' : 'eos' }];
      });
    },
  } as unknown as PolicyBackend;
  // perRow: each of n rows of a prompt is sampled as its own row (row index = position in the batch).
  policy.sample = perRow(policy.sample.bind(policy));
  return policy;
}

const dir = mkdtempSync(join(tmpdir(), 'curricula-eval-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('evaluation in an environment', () => {
  it('grades each episode whole and counts the tool calls, the calling share and its pass@1', async () => {
    const problems = [additionProblem('1234567', '7654321'), additionProblem('99999999', '1')];
    const { tools } = buildTools(block);
    const outcomes = await sampleEpisodesAndVerify(
      halfCalling(),
      problems,
      { block, tools },
      {
        samples: 4,
        temperature: 1,
        seed: 1,
      },
    );
    expect(outcomes[0].completions[0]).toBe('<calc>1234567+7654321</calc><out>8888888</out>\nA:8888888');
    const summary = summarizeOutcomes(outcomes);
    const calling = outcomes.flatMap((outcome) => outcome.episodes!.map((episode) => episode.toolCalls));
    expect(calling.filter((calls) => calls > 0).length).toBeGreaterThan(0);
    expect(calling.filter((calls) => calls === 0).length).toBeGreaterThan(0);
    const tools8 = summary.overall.tools!;
    expect(tools8.samples).toBe(8);
    expect(tools8.callRate).toBeCloseTo(calling.filter((calls) => calls > 0).length / 8, 12);
    expect(tools8.callsPerSample).toBeCloseTo(calling.reduce((a, b) => a + b, 0) / 8, 12);
    // Every sample that called copied the tool's output; none that guessed 0 was right.
    expect(tools8.passAt1WithCall).toBe(1);
    expect(tools8.passAt1WithoutCall).toBe(0);
    expect(summary.overall.passAt1).toBeCloseTo(tools8.callRate, 12);
    expect(summary.metrics['eval/tools/call_rate/addition/7']).toBeDefined();
    expect(formatEvalTable(summary).split('\n')[0]).toContain(
      'calls/sample  call rate  pass@1 calling  errors',
    );
  });

  it('a chat environment: each completion starts after the rendered chat prompt, with the call and the answer', async () => {
    const qwen = qwen3Tokenizer();
    const call =
      '<tool_call>\n{"name": "calc", "arguments": {"expression": "1234567+7654321"}}\n</tool_call>';
    const { policy } = scriptedChatPolicy(qwen, (prompt) =>
      qwen.decode(prompt, { keepSpecialTokens: true }).includes('<tool_response>')
        ? { text: 'A:8888888', end: 'eos' }
        : { text: call, end: 'eos' },
    );
    const chat = environmentBlockSchema.parse({ name: 'chat', tools: ['calc'], enableThinking: false })!;
    const { tools } = buildTools(chat);
    const [outcome] = await sampleEpisodesAndVerify(
      policy,
      [additionProblem('1234567', '7654321')],
      { block: chat, tools },
      {
        samples: 1,
        temperature: 1,
        seed: 1,
      },
    );
    expect(outcome.completions[0].startsWith('<tool_call>')).toBe(true);
    expect(outcome.completions[0]).toContain('8888888');
    expect(outcome.correct).toEqual([true]);
    expect(outcome.episodes?.[0].toolCalls).toBe(1);
  });

  it("a run's own environment is the default; 'none' samples single-turn", async () => {
    const run = join(dir, 'run');
    RunStore.create(run, {
      seed: 4,
      tasks: [{ task: 'addition', difficulties: [2] }],
      rollout: { environment: { name: 'tag-tools', tools: ['calc'] } },
    }).close();
    const model = join(run, 'checkpoints', 'step-000001', 'model');
    cpSync(resolve(import.meta.dirname, '../../examples/checkpoints/ladder-cold'), model, {
      recursive: true,
    });
    const common = {
      checkpoint: model,
      samples: 2,
      problemsPerDifficulty: 3,
      temperature: 1,
      workers: 1 as const,
    };
    const inEnvironment = await evaluateFromConfig(common);
    expect(inEnvironment.environment).toEqual({ name: 'tag-tools', tools: ['calc'] });
    expect(inEnvironment.summary.overall.tools?.samples).toBe(6);
    const single = await evaluateFromConfig({ ...common, environment: 'none' });
    expect(single.environment).toBeUndefined();
    expect(single.summary.overall.tools).toBeUndefined();
  }, 60_000);
});
