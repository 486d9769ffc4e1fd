// Prompts for a chat model (policy.promptFormat: chat, eval --prompt-format chat): the task prompt as one
// user turn in the model's own chat template, generation prompt included, on Qwen3's real files. The
// expected ids are those of the ChatML text written out by hand (Qwen's documented format), so the test
// does not trust the template renderer it checks.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { promptTokens } from '../tasks/format.ts';
import { qwen3ModelDir } from '../testing/tokenizers/test-helpers.ts';
import { ChatPromptTokenizer } from './chat-prompt.ts';
import { HfTokenizer } from './hf-tokenizer.ts';
import { readTokenizer } from './read-tokenizer.ts';

const problem = { id: 'p1', prompt: 'What is 2+3?' } as Problem;

describe('chat prompts (Qwen3)', () => {
  it('renders the prompt as a ChatML user turn with the assistant generation prompt', () => {
    const chat = readTokenizer(qwen3ModelDir(), { promptFormat: 'chat' });
    expect(chat).toBeInstanceOf(ChatPromptTokenizer);
    const qwen = (chat as ChatPromptTokenizer).inner;
    const expected = qwen.encode('<|im_start|>user\nWhat is 2+3?<|im_end|>\n<|im_start|>assistant\n');
    expect(promptTokens(chat, problem)).toEqual(expected);
    expect(expected[0]).toBe(qwen.tokenId('<|im_start|>'));
    // Stop ids, encode and decode are the model's own.
    expect(chat.stopTokenIds).toEqual(qwen.stopTokenIds);
    expect(chat.encode('Hello')).toEqual([9707]);
  });

  it('passes template variables (Qwen3 enable_thinking: false adds the empty think block)', () => {
    const chat = readTokenizer(qwen3ModelDir(), {
      promptFormat: 'chat',
      chat: { variables: { enable_thinking: false } },
    }) as ChatPromptTokenizer;
    const text = '<|im_start|>user\nWhat is 2+3?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';
    expect(promptTokens(chat, problem)).toEqual(chat.inner.encode(text));
  });

  it('raw prompts of a model without BOS are the prompt ids alone', () => {
    const raw = readTokenizer(qwen3ModelDir());
    expect(raw).toBeInstanceOf(HfTokenizer);
    expect(promptTokens(raw, problem)).toEqual(raw.encode('What is 2+3?'));
  });

  it('refuses chat prompts without a chat template, or without a model directory', () => {
    expect(() => readTokenizer('examples/checkpoints/demo-cold', { promptFormat: 'chat' })).toThrow(
      /char tokenizer, which has no chat template/,
    );
    expect(() => readTokenizer(undefined, { promptFormat: 'chat' })).toThrow(/needs --tokenizer/);
  });
});
