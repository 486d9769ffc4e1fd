// The tokenizer of a remote model, from a local directory the user gives (`--tokenizer <dir>`,
// `policy.tokenizer`): the embedded char tokenizer when `<dir>/tokenizer.json` is one of ours (exact ids),
// else a Hugging Face tokenizer (load-tokenizer.ts); the embedded suite's char tokenizer when no directory
// is given. `promptFormat: 'chat'` renders prompts with the model's chat template (chat-prompt.ts) and
// needs a Hugging Face tokenizer that ships one.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../core/errors.ts';
import type { Tokenizer } from '../core/policy.ts';
import { charactersFromJson } from '../policy/char-tokenizer-json.ts';
import { CharTokenizer, suiteTokenizer } from '../policy/tokenizer.ts';
import { type ChatPromptOptions, ChatPromptTokenizer } from './chat-prompt.ts';
import { loadTokenizer } from './load-tokenizer.ts';

export type PromptFormat = 'raw' | 'chat';

export interface ReadTokenizerOptions {
  /** raw (default): [BOS] + prompt; chat: the model's chat template, generation prompt included. */
  promptFormat?: PromptFormat;
  chat?: ChatPromptOptions;
  /** How the directory was given, for messages (default '--tokenizer'). */
  what?: string;
}

/** Reads a model's tokenizer from a local directory (tokenizer.json; the embedded suite's when absent). */
export function readTokenizer(dir: string | undefined, options: ReadTokenizerOptions = {}): Tokenizer {
  const what = options.what ?? '--tokenizer';
  const format = options.promptFormat ?? 'raw';
  if (dir === undefined) {
    if (format === 'chat') throw new UserError(`prompt format 'chat' needs ${what} <model directory>`);
    return suiteTokenizer();
  }
  const path = join(resolve(dir), 'tokenizer.json');
  if (!existsSync(path)) throw new UserError(`${what} ${dir}: no tokenizer.json there`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`${what} ${path}: not JSON (${(error as Error).message})`);
  }
  if (isCharTokenizerJson(json)) {
    if (format === 'chat') {
      throw new UserError(
        `${what} ${dir} is the embedded char tokenizer, which has no chat template: use prompt format 'raw'`,
      );
    }
    return CharTokenizer.fromJSON(json);
  }
  const tokenizer = loadTokenizer(dir);
  return format === 'chat' ? new ChatPromptTokenizer(tokenizer, options.chat) : tokenizer;
}

/** Whether a tokenizer.json is the embedded char tokenizer's (either form), which CharTokenizer reads exactly. */
function isCharTokenizerJson(json: unknown): boolean {
  try {
    charactersFromJson(json);
    return true;
  } catch {
    return false;
  }
}
