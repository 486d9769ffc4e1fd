// ChatTokenEnvironment with the real Qwen3 tokenizer and template: a calculator episode end to end; the
// drift check (reasoning before a later user turn is dropped by a re-render, reasoning inside a run of
// tool calls is kept, a tokenization BPE would not produce drifts, an episode without either does not);
// the parse-error policy on a malformed call and on arguments the tool's schema refuses; the
// conformance suite; a template that does not extend a conversation by appending is refused by name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { qwen3Tokenizer, type ScriptedTurn, scriptedChatPolicy } from '../../testing/chat/test-helpers.ts';
import { qwen3ModelDir } from '../../testing/tokenizers/test-helpers.ts';
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import { ChatTemplateError } from '../../tokenizers/chat-template.ts';
import { HfTokenizer } from '../../tokenizers/hf-tokenizer.ts';
import { checkEnvironment } from '../conformance.ts';
import { runEpisodes } from '../episode.ts';
import { type ParseErrorPolicy, parseEpisodeLimits } from '../limits.ts';
import { calculator } from '../tools/calculator.ts';
import type { ChatEnvironment } from './contract.ts';
import { ChatRenderer } from './renderer.ts';
import { ChatTokenEnvironment } from './token-environment.ts';
import { ToolChatEnvironment } from './tool-environment.ts';

const tokenizer = qwen3Tokenizer();
const question: ChatMessage[] = [{ role: 'user', content: 'What is 2+2?' }];

/** Runs one episode of `chat` with the policy writing `turns` in order. */
async function run(chat: ChatEnvironment, turns: (string | ScriptedTurn)[], parseErrors?: ParseErrorPolicy) {
  let next = 0;
  const { policy } = scriptedChatPolicy(tokenizer, () => {
    const turn = turns[next++] ?? '';
    return typeof turn === 'string' ? { text: turn, end: 'eos' } : turn;
  });
  const environment = new ChatTokenEnvironment(chat, { tokenizer });
  const limits = parseEpisodeLimits({ maxTurnTokens: 512, maxObservationTokens: 512, parseErrors });
  const [episode] = await runEpisodes(policy, [environment], { limits, temperature: 1, topP: 1, seed: 1 });
  return { episode, environment };
}

const calculatorChat = () =>
  new ToolChatEnvironment({
    messages: question,
    tools: [calculator],
    grade: (message) => (message.content.trim() === '4' ? 1 : 0),
  });

/** A chat that answers each turn with the next of `replies` (user messages), then ends. */
function conversation(replies: ChatMessage[][]): ChatEnvironment {
  let turn = 0;
  return {
    tools: [calculator],
    initialMessages: async () => structuredClone(question),
    step: async () => {
      const messages = replies[turn++];
      return messages ? { reward: 0, done: false, messages } : { reward: 1, done: true };
    },
  };
}

const call = '<tool_call>\n{"name": "calc", "arguments": {"expression": "2+2"}}\n</tool_call>';
const lastTurn = '<think>\n\n</think>\n\n4';
const text = (tokens: readonly number[]) => tokenizer.decode(tokens, { keepSpecialTokens: true });

describe('chat environments over the Qwen3 template', () => {
  it('runs a calculator call: the output in a <tool_response>, the final answer graded', async () => {
    const { episode } = await run(calculatorChat(), [call, '4']);
    expect(episode.end).toBe('done');
    expect(episode.return).toBe(1);
    expect(episode.metrics).toEqual({ tool_calls: 1, 'tool_calls/calc': 1 });
    const [first, second] = episode.turns;
    const observation = episode.tokens.slice(first.start + first.actionTokens, second.start);
    expect(text(observation)).toBe(
      '\n<|im_start|>user\n<tool_response>\n4\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
    expect(text(episode.tokens.slice(second.start))).toBe('4<|im_end|>');
  });

  it('reports drift when a re-render drops reasoning before a later user turn, and none without it', async () => {
    const followUp = [[{ role: 'user', content: 'Sure?' }]];
    const reasoned = await run(conversation(followUp), [
      '<think>\nTwo and two.\n</think>\n\nFour.',
      lastTurn,
    ]);
    const drift = reasoned.environment.drift(reasoned.episode);
    expect(drift.drifted).toBe(true);
    expect(drift.firstDifference).toBe(reasoned.episode.turns[0].start);
    expect(drift.episodeText.startsWith('<think>\nTwo and two.\n</think>\n\nFour.<|im_end|>')).toBe(true);
    expect(drift.renderedText.startsWith('Four.<|im_end|>')).toBe(true);
    const plain = await run(conversation(followUp), ['Four.', lastTurn]);
    expect(plain.environment.drift(plain.episode)).toMatchObject({ drifted: false, firstDifference: -1 });
    // Qwen3 keeps the reasoning of turns after the last user query (a run of tool calls).
    const tools = await run(calculatorChat(), [`<think>\nUse the tool.\n</think>\n\n${call}`, lastTurn]);
    expect(tools.episode.return).toBe(1);
    expect(tools.environment.drift(tools.episode).drifted).toBe(false);
    // The same text in tokens BPE would not produce: kept as sampled, so a re-render differs.
    const split = await run(conversation(followUp), [{ text: 'Four.', end: 'eos', split: 2 }, lastTurn]);
    expect(split.environment.drift(split.episode).drifted).toBe(true);
  });

  it('applies the parse-error policy to a malformed call and to arguments the schema refuses', async () => {
    const unclosed = '<tool_call>\n{"name": "calc", "arguments": {"expression": "2+2"}}';
    const respond = await run(calculatorChat(), [unclosed, '4'], 'respond');
    expect(respond.episode).toMatchObject({ end: 'done', return: 1, errors: { parse: 1, tool: 0 } });
    const [first, second] = respond.episode.turns;
    expect(first.error).toEqual({ kind: 'parse', message: '<tool_call> without </tool_call>' });
    expect(text(respond.episode.tokens.slice(first.start + first.actionTokens, second.start))).toBe(
      '\n<|im_start|>user\nYour tool call could not be parsed: <tool_call> without </tool_call>.<|im_end|>\n<|im_start|>assistant\n',
    );
    for (const policy of ['end', 'zero'] as const) {
      const ended = await run(calculatorChat(), [unclosed, '4'], policy);
      expect(ended.episode).toMatchObject({ end: 'parse_error', return: 0, errors: { parse: 1 } });
      expect(ended.episode.turns).toHaveLength(1);
    }
    const refused = '<tool_call>\n{"name": "calc", "arguments": {"expr": "2+2"}}\n</tool_call>';
    const schema = await run(calculatorChat(), [refused, '4'], 'end');
    expect(schema.episode).toMatchObject({ end: 'parse_error', errors: { parse: 1 } });
    expect(schema.environment.transcript().at(-1)?.content).toMatch(/^error: /);
  });

  it('passes the environment conformance suite', async () => {
    const make = () => new ChatTokenEnvironment(calculatorChat(), { tokenizer });
    const report = await checkEnvironment(make, { tokenizer, name: 'chat' });
    expect(report.checks).toContain('a fresh environment starts the same way');
    expect(report.checks).toContain('a step on garbage: reward is finite');
  });

  it('refuses, naming the template, one that does not extend a conversation by appending', () => {
    const counting =
      '{{ messages|length }}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}';
    const json = JSON.parse(readFileSync(join(qwen3ModelDir(), 'tokenizer.json'), 'utf8'));
    const config = JSON.parse(readFileSync(join(qwen3ModelDir(), 'tokenizer_config.json'), 'utf8'));
    const source = 'counting-model';
    const other = new HfTokenizer(json, { config, chatTemplates: new Map([['default', counting]]), source });
    const renderer = new ChatRenderer({ tokenizer: other });
    expect(() => renderer.suffix([{ role: 'user', content: 'x' }])).toThrow(ChatTemplateError);
    expect(() => renderer.suffix([{ role: 'user', content: 'x' }])).toThrow(
      /chat template 'default' of counting-model re-renders the turns before an assistant turn/,
    );
  });
});
