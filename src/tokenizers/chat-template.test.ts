// Chat templates rendered from the model's own Jinja template. The Qwen3 expectations are written from
// the format Qwen documents (ChatML: `<|im_start|>{role}\n{content}<|im_end|>\n`, the generation prompt
// `<|im_start|>assistant\n`, and for Qwen3 the empty think block `<think>\n\n</think>\n\n` that
// enable_thinking=False adds, plus "no thinking content in history": earlier assistant turns keep only
// the text after </think>) — not from running the template.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import { qwen3ModelDir } from '../testing/tokenizers/test-helpers.ts';
import { ChatTemplateError, chatTokenIds, renderChat, renderChatFor } from './chat-template.ts';
import type { HfTokenizer } from './hf-tokenizer.ts';
import { loadTokenizer } from './load-tokenizer.ts';

const modelDir = qwen3ModelDir();
const conversation = [
  { role: 'user', content: 'What is 2+3?' },
  { role: 'assistant', content: '5' },
  { role: 'user', content: 'And 4+4?' },
];
const expectedTwoTurns =
  '<|im_start|>user\nWhat is 2+3?<|im_end|>\n' +
  '<|im_start|>assistant\n5<|im_end|>\n' +
  '<|im_start|>user\nAnd 4+4?<|im_end|>\n' +
  '<|im_start|>assistant\n';

let qwen: HfTokenizer;
beforeAll(() => {
  qwen = loadTokenizer(modelDir);
});

describe('renderChat with the Qwen3 template', () => {
  it('renders a 2-turn conversation in ChatML with the generation prompt', () => {
    expect(renderChatFor(qwen, conversation, { addGenerationPrompt: true })).toBe(expectedTwoTurns);
    expect(renderChatFor(qwen, conversation)).toBe(
      expectedTwoTurns.slice(0, -'<|im_start|>assistant\n'.length),
    );
  });

  it('thinking on by default and with enable_thinking=true; an empty think block with enable_thinking=false', () => {
    const on = renderChatFor(qwen, conversation, { addGenerationPrompt: true, enable_thinking: true });
    expect(on).toBe(expectedTwoTurns);
    const off = renderChatFor(qwen, conversation, { addGenerationPrompt: true, enable_thinking: false });
    expect(off).toBe(`${expectedTwoTurns}<think>\n\n</think>\n\n`);
  });

  it('puts the system message first and drops earlier reasoning from history', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '<think>\nThe user greets me.\n</think>\n\nHello!' },
      { role: 'user', content: 'Bye' },
    ];
    expect(renderChatFor(qwen, messages, { addGenerationPrompt: true })).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n' +
        '<|im_start|>user\nHi<|im_end|>\n' +
        '<|im_start|>assistant\nHello!<|im_end|>\n' +
        '<|im_start|>user\nBye<|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
  });

  it('gives the token ids of the rendered chat: special tokens as single ids, no BOS added', () => {
    const ids = chatTokenIds(qwen, [{ role: 'user', content: 'Hello' }], { addGenerationPrompt: true });
    // Read from Qwen3's tokenizer.json: added_tokens <|im_start|> 151644, <|im_end|> 151645; vocab
    // user 872, assistant 77091, Hello 9707, Ċ (the byte-level form of '\n') 198.
    expect(ids).toEqual([151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198]);
    // Longer chats: the ids are those of the rendered text (encode is checked in hf-tokenizer.test.ts).
    const options = { addGenerationPrompt: true, enable_thinking: false };
    expect(chatTokenIds(qwen, conversation, options)).toEqual(
      qwen.encode(`${expectedTwoTurns}<think>\n\n</think>\n\n`),
    );
  });
});

describe('renderChat errors and variables', () => {
  const llamaLike =
    "{{ bos_token }}{% for m in messages %}{% if m.role == 'user' %}[INST] {{ m.content }} [/INST]" +
    "{% elif m.role == 'assistant' %}{{ m.content }}{{ eos_token }}" +
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}";

  it('passes bos_token and eos_token, and leaves a missing one empty', () => {
    const messages = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ];
    expect(renderChat(llamaLike, messages, { bosToken: '<s>', eosToken: '</s>' })).toBe(
      '<s>[INST] a [/INST]b</s>',
    );
    expect(renderChat(llamaLike, messages, { bosToken: null, eosToken: '</s>' })).toBe(
      '[INST] a [/INST]b</s>',
    );
  });

  it('turns template failures and bad input into one-line ChatTemplateErrors', () => {
    const fails = (run: () => unknown, pattern: RegExp) => {
      expect(run).toThrow(ChatTemplateError);
      expect(run).toThrow(pattern);
    };
    expect(new ChatTemplateError('x')).toBeInstanceOf(UserError);
    fails(
      () => renderChat(llamaLike, [{ role: 'tool', content: 'x' }]),
      /chat template failed: Only user and assistant roles are supported!/,
    );
    fails(() => renderChat('{% for m in messages %}', [{ role: 'user', content: 'x' }]), /does not parse/);
    fails(() => renderChat(llamaLike, []), /no messages to render/);
    fails(() => renderChat(llamaLike, [{ content: 'x' } as never]), /message 0 is not \{role/);
    fails(() => renderChat(llamaLike, [{ role: 'user', content: 3 } as never]), /message 0/);
    fails(
      () => renderChat(llamaLike, [{ role: 'user', content: 'x' }], { messages: [] }),
      /'messages' cannot be passed/,
    );
    fails(
      () => renderChat(llamaLike, [{ role: 'user', content: 'x' }], { range: 1 }),
      /'range' cannot be passed/,
    );
    fails(() => renderChat('', [{ role: 'user', content: 'x' }]), /empty/);
  });

  it('names the model directory when the tokenizer has no chat template', () => {
    // The shipped embedded checkpoint's tokenizer has no chat template.
    const bare = loadTokenizer(join(import.meta.dirname, '../../examples/checkpoints/demo-cold'));
    expect(() => chatTokenIds(bare, [{ role: 'user', content: 'x' }])).toThrow(
      /demo-cold: the model has no chat template/,
    );
    expect(() => qwen.chatTemplate('tool_use')).toThrow("no chat template named 'tool_use' (known: default)");
  });
});
