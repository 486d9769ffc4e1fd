// The Hermes/Qwen3 reply parser: reasoning split as Qwen3's template splits it, content before the first
// call, calls with their arguments and ids, and each kind of malformed call named.
import { describe, expect, it } from 'vitest';
import { testTools } from '../../testing/chat/test-helpers.ts';
import { parseHermesReply, splitReasoning } from './hermes.ts';

const parse = (text: string) => parseHermesReply(text, testTools, 'call_0');

describe('parseHermesReply', () => {
  it('splits reasoning as the Qwen3 template does', () => {
    expect(splitReasoning('<think>\n\nplan\n\n</think>\n\nanswer')).toEqual({
      reasoning: 'plan',
      rest: 'answer',
    });
    // The generation prompt may have written <think> already: the text then starts inside the block.
    expect(splitReasoning('plan</think>answer')).toEqual({ reasoning: 'plan', rest: 'answer' });
    expect(splitReasoning('no reasoning')).toEqual({ rest: 'no reasoning' });
  });

  it('reads content and calls', () => {
    const text =
      '<think>\nx\n</think>\n\nLet me look.\n<tool_call>\n{"name": "lookup", "arguments": {"query": "é \\"q\\""}}\n</tool_call>\n<tool_call>\n{"name": "store", "arguments": {}}\n</tool_call>';
    expect(parse(text)).toEqual({
      message: {
        role: 'assistant',
        content: 'Let me look.',
        reasoning: 'x',
        toolCalls: [
          { id: 'call_0_0', name: 'lookup', arguments: { query: 'é "q"' } },
          { id: 'call_0_1', name: 'store', arguments: {} },
        ],
      },
    });
  });

  it('names what is malformed', () => {
    const block = (json: string) => `<tool_call>\n${json}\n</tool_call>`;
    expect(parse('<tool_call>\n{"name": "lookup"').error).toBe('<tool_call> without </tool_call>');
    expect(parse('ok</tool_call>').error).toBe('</tool_call> without <tool_call>');
    expect(parse(`${block('{"name": "store", "arguments": {}}')}</tool_call>`).error).toBe(
      '</tool_call> without <tool_call>',
    );
    expect(parse(block('{oops}')).error).toMatch(/^a tool call is not JSON \(/);
    expect(parse(block('[1]')).error).toBe('a tool call is not a JSON object {"name": …, "arguments": {…}}');
    expect(parse(block('{"arguments": {}}')).error).toBe('a tool call has no "name" string');
    expect(parse(block('{"name": "rm", "arguments": {}}')).error).toBe(
      "unknown tool 'rm' (known: lookup, store)",
    );
    expect(parse(block('{"name": "lookup", "arguments": "q"}')).error).toBe(
      `the call of 'lookup' has no "arguments" object`,
    );
  });
});
