// tokenPieces: a streamed completion's text split at its tokens, cut where the text ends (a stop string
// inside a multi-character token), and the chunk shapes of the two routes.
import { describe, expect, it } from 'vitest';
import type { Tokenizer } from '../../core/policy.ts';
import { chatEvents, completionEvents, tokenPieces } from './stream.ts';

const words: Record<number, string> = { 3: 'ab', 4: 'cd', 5: 'ef', 2: '' };
const tokenizer = {
  decode: (ids: readonly number[]) => ids.map((id) => words[id] ?? '?').join(''),
} as Tokenizer;

describe('streaming', () => {
  it('splits the text at its tokens and cuts it where the completion text ends', () => {
    expect(tokenPieces(tokenizer, [3, 4, 5, 2], 'abcdef')).toEqual([
      { text: 'ab', token: 0 },
      { text: 'cd', token: 1 },
      { text: 'ef', token: 2 },
    ]);
    // A stop string 'd…' removed from the output: the piece of token 1 is cut, token 2 gives none.
    expect(tokenPieces(tokenizer, [3, 4, 5], 'abc')).toEqual([
      { text: 'ab', token: 0 },
      { text: 'c', token: 1 },
    ]);
  });

  it('writes OpenAI chunk shapes, a usage chunk when asked, and [DONE]', () => {
    const head = { id: 'x', created: 1, model: 'm' };
    const choice = {
      index: 0,
      pieces: [{ text: 'ab', token: 0 }],
      finishReason: 'stop' as const,
      stopReason: null,
    };
    const chat = chatEvents(head, [choice], { total_tokens: 3 }).map((event) => event.trim());
    expect(chat.at(-1)).toBe('data: [DONE]');
    const parsed = chat.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
    expect(parsed.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'ab' },
      {},
      null,
    ]);
    expect(parsed.slice(0, 3).every((chunk) => chunk.usage === null)).toBe(true);
    expect(parsed[3]).toMatchObject({ choices: [], usage: { total_tokens: 3 } });
    const text = completionEvents(head, [choice], null)
      .slice(0, -1)
      .map((event) => JSON.parse(event.slice(6)));
    expect(text.map((chunk) => [chunk.choices[0].text, chunk.choices[0].finish_reason])).toEqual([
      ['ab', null],
      ['', 'stop'],
    ]);
    expect(text.every((chunk) => !('usage' in chunk))).toBe(true);
  });
});
