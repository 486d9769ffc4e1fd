// Token identity over a chat template (issue 30's target): 1,000 random multi-turn episodes with the real
// Qwen3 tokenizer and template — random reasoning blocks, tool calls with random JSON arguments (quotes,
// backslashes, unicode), random tool outputs and user turns, 1–4 turns, malformed calls, turns cut
// without an end-of-turn token or ended by <|endoftext|>, and action tokens that are not BPE's own
// tokenization of their text. Checked: each turn's action is, token for token, what the policy sampled
// for exactly that context; the mask is 1 exactly on sampled tokens; the first observation decodes to
// the template's rendering of the initial messages; each later observation decodes to what Qwen3's
// template appends after an assistant turn (written out by hand in qwen3Suffix), preceded by <|im_end|>
// when the turn was not closed; a malformed call is a 'parse' error and nothing else is.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import {
  qwen3Suffix,
  qwen3Tokenizer,
  randomArguments,
  randomText,
  type ScriptedTurn,
  scriptedChatPolicy,
  testTools,
} from '../../testing/chat/test-helpers.ts';
import { type ChatMessage, renderChatFor } from '../../tokenizers/chat-template.ts';
import { runEpisodes } from '../episode.ts';
import type { Episode } from '../episode-record.ts';
import { parseEpisodeLimits } from '../limits.ts';
import type { AssistantMessage, ChatEnvironment } from './contract.ts';
import { ChatTokenEnvironment } from './token-environment.ts';

const tokenizer = qwen3Tokenizer();

interface Script {
  rng: Rng;
  initial: ChatMessage[];
  turns: number;
  sampled: { turn: ScriptedTurn; malformed: boolean; calls: Record<string, unknown>[] }[];
  /** What the environment appended after each turn it stepped. */
  replies: ChatMessage[][];
  received: AssistantMessage[];
}

const malformedCalls = [
  '<tool_call>\n{"name": "lookup", "arguments": {"query": ',
  '<tool_call>\n{"name": "lookup", "arguments": {oops}}\n</tool_call>',
  '<tool_call>\n{"name": "delete_everything", "arguments": {}}\n</tool_call>',
  '<tool_call>\n{"name": "lookup"}\n</tool_call>',
  'done</tool_call>',
];

function nextTurn(script: Script): ScriptedTurn {
  const { rng } = script;
  const index = script.sampled.length;
  const reasoning = rng.next() < 0.5 ? `<think>\n${randomText(rng, 6)}\n</think>\n\n` : '';
  const content = randomText(rng, 5);
  const malformed = index < script.turns - 1 && rng.next() < 0.15;
  const calls = malformed || index === script.turns - 1 ? [] : [0, 1].slice(0, rng.int(1, 2));
  const argumentsOf = calls.map(() => randomArguments(rng));
  const blocks = argumentsOf.map((args, i) => {
    const call = { name: testTools[i].name, arguments: args };
    const json = rng.next() < 0.5 ? JSON.stringify(call) : JSON.stringify(call, null, 1);
    return `<tool_call>\n${json}\n</tool_call>`;
  });
  if (malformed) blocks.push(malformedCalls[rng.int(0, malformedCalls.length - 1)]);
  const text = `${reasoning}${content}${blocks.length > 0 && content ? '\n' : ''}${blocks.join('\n')}`;
  const ends: ScriptedTurn['end'][] = ['eos', 'eos', 'eos', 'eos', 'eos', 'eos', 'other', 'none'];
  const length = [...text].length;
  const turn: ScriptedTurn = { text, end: ends[rng.int(0, ends.length - 1)] };
  if (length > 1 && rng.next() < 0.3) turn.split = rng.int(1, length - 1);
  script.sampled.push({ turn, malformed, calls: argumentsOf });
  return turn;
}

function chatEnvironment(script: Script): ChatEnvironment {
  const { rng } = script;
  return {
    tools: testTools,
    initialMessages: async () => structuredClone(script.initial),
    step: async (message) => {
      script.received.push(message);
      if (message.toolCalls.length === 0) return { reward: 1, done: true };
      const messages: ChatMessage[] = message.toolCalls.map((call) => ({
        role: 'tool',
        tool_call_id: call.id,
        content: randomText(rng, 8),
      }));
      if (rng.next() < 0.25) messages.push({ role: 'user', content: randomText(rng, 6, 1) });
      if (rng.next() < 0.1) messages.splice(0, messages.length, { role: 'user', content: 'Go on.' });
      script.replies.push(messages);
      return { reward: 0, done: false, messages, metrics: { tool_calls: message.toolCalls.length } };
    },
  };
}

function newScript(id: number): Script {
  const rng = new Rng(1000 + id);
  const initial: ChatMessage[] = [{ role: 'user', content: `Episode ${id}: ${randomText(rng, 6)}` }];
  if (rng.next() < 0.3) initial.unshift({ role: 'system', content: randomText(rng, 6, 1) });
  return { rng, initial, turns: rng.int(1, 4), sampled: [], replies: [], received: [] };
}

const text = (tokens: readonly number[]) => tokenizer.decode(tokens, { keepSpecialTokens: true });

/** What is wrong with one episode (empty when nothing). */
function problems(script: Script, episode: Episode, sampled: Map<string, number[][]>): string[] {
  const found: string[] = [];
  const tools = testTools.map((tool) => tool.openai);
  const first = renderChatFor(tokenizer, script.initial, { addGenerationPrompt: true, tools });
  if (text(episode.tokens.slice(0, episode.turns[0].start)) !== first) found.push('first observation');
  const mask = episode.tokens.map(() => 0);
  let replies = 0;
  episode.turns.forEach((turn, k) => {
    const actionEnd = turn.start + turn.actionTokens;
    const action = episode.tokens.slice(turn.start, actionEnd);
    for (let i = turn.start; i < actionEnd; i++) mask[i] = 1;
    const context = episode.tokens.slice(0, turn.start).join(',');
    if (JSON.stringify(sampled.get(context)) !== JSON.stringify([action])) found.push(`turn ${k} action`);
    const { malformed, turn: scripted } = script.sampled[k];
    if ((turn.error?.kind === 'parse') !== malformed) found.push(`turn ${k} parse error: ${!malformed}`);
    if (k === episode.turns.length - 1 && turn.observationTokens === 0) return;
    const messages = malformed
      ? [{ role: 'user', content: `Your tool call could not be parsed: ${turn.error?.message}.` }]
      : script.replies[replies++];
    const expected = `${scripted.end === 'eos' ? '' : '<|im_end|>'}${qwen3Suffix(messages)}`;
    const observation = episode.tokens.slice(actionEnd, actionEnd + turn.observationTokens);
    if (text(observation) !== expected) found.push(`turn ${k} observation`);
    if (episode.turns[k + 1] && episode.turns[k + 1].start !== actionEnd + turn.observationTokens)
      found.push(`turn ${k} does not tile`);
  });
  if (JSON.stringify(mask) !== JSON.stringify(episode.mask)) found.push('mask');
  return found;
}

describe('token identity over the Qwen3 chat template', () => {
  it('trains exactly the sampled tokens and appends exactly the template suffix, over 1,000 episodes', async () => {
    const scripts = Array.from({ length: 1000 }, (_, id) => newScript(id));
    const { policy, sampled } = scriptedChatPolicy(tokenizer, (prompt) => {
      const id = Number(/Episode (\d+):/.exec(tokenizer.decode(prompt.slice(0, 400)))?.[1]);
      return nextTurn(scripts[id]);
    });
    const limits = parseEpisodeLimits({ maxTurns: 4, maxTurnTokens: 4096, maxObservationTokens: 4096 });
    const environments = scripts.map(
      (script) => new ChatTokenEnvironment(chatEnvironment(script), { tokenizer }),
    );
    const episodes = await runEpisodes(policy, environments, { limits, temperature: 1, topP: 1, seed: 3 });
    const failures = episodes.flatMap((episode, i) =>
      problems(scripts[i], episode, sampled).map((what) => `episode ${i}: ${what}`),
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(episodes.filter((episode) => episode.end === 'environment_error')).toEqual([]);
    // The arguments the environment received are the ones written, for every well-formed call.
    scripts.forEach((script) => {
      const written = script.sampled.filter((turn) => !turn.malformed).map((turn) => turn.calls);
      const received = script.received.map((message) => message.toolCalls.map((call) => call.arguments));
      expect(received).toEqual(written.slice(0, received.length));
    });
    // The random episodes cover what they are meant to.
    const turns = scripts.flatMap((script) => script.sampled);
    expect(turns.filter((turn) => turn.malformed).length).toBeGreaterThan(100);
    expect(turns.filter((turn) => turn.turn.end === 'none').length).toBeGreaterThan(100);
    expect(turns.filter((turn) => turn.turn.end === 'other').length).toBeGreaterThan(100);
    expect(turns.filter((turn) => turn.turn.split !== undefined).length).toBeGreaterThan(300);
    expect(episodes.filter((episode) => episode.turns.length === 4).length).toBeGreaterThan(100);
  }, 60_000);
});
