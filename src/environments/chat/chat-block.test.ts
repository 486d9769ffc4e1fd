// The `chat` variant of rollout.environment: its defaults and refusals; the policy tokenizer it needs
// (one with a chat template: Qwen3's, or the one a `promptFormat: chat` tokenizer wraps); the first
// observation of an episode environmentFor builds (the problem's prompt as the user's message, the tools
// in the template's tools prompt, the template variables applied).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { additionProblem } from '../../tasks/addition.ts';
import { qwen3Tokenizer } from '../../testing/chat/test-helpers.ts';
import { ChatPromptTokenizer } from '../../tokenizers/chat-prompt.ts';
import { buildTools, environmentBlockSchema, environmentFor } from '../block.ts';
import { chatBlockSchema, chatTemplateTokenizer } from './chat-block.ts';
import { ChatTokenEnvironment } from './token-environment.ts';

describe("rollout.environment 'chat'", () => {
  it('fills the defaults', () => {
    const block = environmentBlockSchema.parse({ name: 'chat' });
    expect(block).toMatchObject({
      name: 'chat',
      tools: ['calc'],
      searchResults: 3,
      toolTimeoutMs: 5000,
      maxOutputChars: 256,
      variables: {},
      credit: 'episode',
      limits: { maxTurns: 4, maxTurnTokens: 64, parseErrors: 'respond' },
    });
    expect(block).not.toHaveProperty('enableThinking');
    expect(block).not.toHaveProperty('templateName');
  });

  it('refuses bad values', () => {
    const bad = [
      { tools: ['shell'] },
      { tools: [] },
      { maxOutputChars: 0 },
      { enableThinking: 'no' },
      { templateName: '' },
      { variables: { tools: [] } },
      { variables: { enable_thinking: false } },
      { limits: { maxTurns: 0 } },
      { url: 'http://localhost:1' },
    ];
    for (const value of bad)
      expect(chatBlockSchema.safeParse({ name: 'chat', ...value }).success).toBe(false);
    expect(chatBlockSchema.safeParse({ name: 'chat', variables: { custom: 1 } }).success).toBe(true);
  });

  it('needs a policy tokenizer with a chat template, and names the variant and the tokenizer', () => {
    const characters = new CharTokenizer(['a', 'b']);
    expect(() => chatTemplateTokenizer(characters)).toThrow(ConfigError);
    expect(() => chatTemplateTokenizer(characters)).toThrow(/'chat'.*CharTokenizer/);
    const qwen3 = qwen3Tokenizer();
    expect(chatTemplateTokenizer(qwen3)).toBe(qwen3);
    expect(chatTemplateTokenizer(new ChatPromptTokenizer(qwen3))).toBe(qwen3);
    expect(() => chatTemplateTokenizer(qwen3, 'tool_use')).toThrow(
      new RegExp(`'chat'.*${qwen3.source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*'tool_use'`),
    );
  });

  it('opens an episode with the problem as the user message and the tools in the template', async () => {
    const tokenizer = qwen3Tokenizer();
    const block = chatBlockSchema.parse({ name: 'chat', enableThinking: false });
    const { tools } = buildTools(block);
    const problem = additionProblem('1', '2');
    const environment = environmentFor(block, tools, {
      tokenizer,
      prompt: tokenizer.encode('ignored'),
      grade: () => 0,
      problem,
    });
    expect(environment).toBeInstanceOf(ChatTokenEnvironment);
    const first = await environment.initialObservation();
    const text = tokenizer.decode(first.tokens, { keepSpecialTokens: true });
    expect(text.startsWith('<|im_start|>system\n')).toBe(true);
    expect(text).toContain('"name": "calc"');
    // Qwen3's template writes an empty reasoning block into the generation prompt when thinking is off.
    expect(
      text.endsWith(
        `<|im_start|>user\n${problem.prompt}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`,
      ),
    ).toBe(true);
    expect(text).not.toContain('ignored');
  });
});
