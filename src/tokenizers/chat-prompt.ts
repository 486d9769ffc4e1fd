// A chat model's tokenizer whose prompts are rendered as one user turn with the model's own chat template
// and its generation prompt (`policy.promptFormat: chat`): what a chat-tuned model (Qwen3, Llama-3
// Instruct) was trained to answer after. Everything else — encode, decode, special and stop ids — is the
// wrapped tokenizer's. The task's prompt text goes in unchanged; what the model must write after it (the
// answer format a reward parses) is the task's, so a real model may need a task prompt that says it.
import type { Tokenizer } from '../core/policy.ts';
import { chatTokenIds } from './chat-template.ts';
import type { HfTokenizer } from './hf-tokenizer.ts';

export interface ChatPromptOptions {
  /** Which of the model's chat templates (default 'default'). */
  templateName?: string;
  /** Extra template variables, e.g. {enable_thinking: false} for Qwen3. */
  variables?: Record<string, unknown>;
}

export class ChatPromptTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly bos: number;
  readonly eos: number;
  readonly pad: number;
  readonly stopTokenIds: readonly number[];

  constructor(
    readonly inner: HfTokenizer,
    private readonly options: ChatPromptOptions = {},
  ) {
    this.vocabSize = inner.vocabSize;
    this.bos = inner.bos;
    this.eos = inner.eos;
    this.pad = inner.pad;
    this.stopTokenIds = inner.stopTokenIds;
    // Fails now, with the model's name, when it ships no such template (not at the first rollout).
    inner.chatTemplate(options.templateName);
  }

  encode(text: string, where?: string): number[] {
    return this.inner.encode(text, where);
  }

  decode(ids: readonly number[]): string {
    return this.inner.decode(ids);
  }

  renderPrompt(text: string): number[] {
    return chatTokenIds(this.inner, [{ role: 'user', content: text }], {
      ...this.options.variables,
      templateName: this.options.templateName,
      addGenerationPrompt: true,
    });
  }
}
