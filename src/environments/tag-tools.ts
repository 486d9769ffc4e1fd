// Tools for the embedded character model in a compact syntax (issue 30): the policy writes
// `<name>input</name>`; sampling stops at the closing tag, the environment runs the tool and appends
// `<out>output</out>` (or `<out>error: why</out>`), and the policy goes on. The episode ends at any other
// end of a turn (EOS, or the turn's token budget), when the whole completion — actions and outputs, as
// the policy saw them — is graded. The syntax is plain characters, so it needs no new tokens in the
// vocabulary; chat models take the OpenAI `tools` field instead (Tool.openai).
//
// A call's input is the text between the tags of the same turn; a closing tag without its opening one,
// or input the tool's schema refuses, is a parse error (the runner's parse-error policy applies); a tool
// that throws or is late is a tool error, reported to the model the same way.
import type { Tokenizer } from '../core/policy.ts';
import type { Action, Environment, Observation, StepResult } from './contract.ts';
import type { Tool } from './tools/define.ts';

/** What a tag-tool environment is made of: the prompt, the tools, the grader and the call limits. */
export interface TagToolOptions {
  tokenizer: Tokenizer;
  /** The first observation: the prompt's tokens (BOS included). */
  prompt: number[];
  tools: readonly Tool[];
  /** Grades the whole completion when the episode ends: the episode's final reward. */
  grade: (completion: string) => number;
  /** Per call (default 5000 ms). */
  toolTimeoutMs?: number;
  /** Longer outputs are cut (default 64 characters). */
  maxOutputChars?: number;
}

/** The text a call's output is shown as. */
export function toolOutputText(output: string): string {
  return `<out>${output}</out>`;
}

/** Characters the tokenizer cannot encode become '?', so an output never breaks the episode. */
export function encodable(tokenizer: Tokenizer, text: string): number[] {
  try {
    return tokenizer.encode(text);
  } catch {
    return [...text].flatMap((character) => {
      try {
        return tokenizer.encode(character);
      } catch {
        return tokenizer.encode('?');
      }
    });
  }
}

/** One episode of `<name>input</name>` tool calls, graded at its end (see the file header). */
export class TagToolEnvironment implements Environment {
  private completion = '';
  private readonly stop: string[];

  constructor(private readonly options: TagToolOptions) {
    this.stop = options.tools.map((tool) => `</${tool.name}>`);
  }

  /** The prompt, with every tool's closing tag as a stop string. */
  async initialObservation(): Promise<Observation> {
    return { tokens: [...this.options.prompt], stop: { stop: this.stop } };
  }

  /** Runs the call the action ends with and shows its output, or grades the episode when there is none. */
  async step(action: Action): Promise<StepResult> {
    this.completion += action.text;
    const tool =
      action.stopReason === 'stop'
        ? this.options.tools.find((candidate) => action.text.endsWith(`</${candidate.name}>`))
        : undefined;
    if (!tool) return { reward: this.options.grade(this.completion), done: true };
    const close = `</${tool.name}>`;
    const open = action.text.lastIndexOf(`<${tool.name}>`, action.text.length - close.length);
    let text: string;
    let error: StepResult['error'];
    if (open < 0) {
      text = toolOutputText(`error: ${close} without <${tool.name}>`);
      error = { kind: 'parse', message: `${close} without <${tool.name}> in the same turn` };
    } else {
      const input = action.text.slice(open + tool.name.length + 2, action.text.length - close.length);
      const outcome = await tool.call(tool.fromText(input), {
        timeoutMs: this.options.toolTimeoutMs ?? 5000,
        maxOutputChars: this.options.maxOutputChars ?? 64,
      });
      text = toolOutputText(outcome.ok ? outcome.output : `error: ${outcome.message}`);
      if (!outcome.ok) error = { kind: outcome.kind, message: outcome.message };
    }
    this.completion += text;
    return {
      reward: 0,
      done: false,
      observation: { tokens: encodable(this.options.tokenizer, text), stop: { stop: this.stop } },
      error,
      metrics: { tool_calls: 1, [`tool_calls/${tool.name}`]: 1 },
    };
  }
}
