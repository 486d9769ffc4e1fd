// `loadTokenizer(dir)`: an HfTokenizer from a local model directory laid out as on the Hugging Face Hub.
// Reads only that directory (never downloads; no network at run time):
//
//   tokenizer.json          required: the fast-tokenizer file (vocabulary, merges, pre-tokenizer, …)
//   tokenizer_config.json   optional: bos/eos/pad/unk tokens, additional_special_tokens, chat_template
//   chat_template.jinja     optional: the chat template as its own file (transformers ≥ 4.43 saves it
//                           so); it takes precedence over tokenizer_config.json's, as in transformers
//   generation_config.json  optional: eos_token_id (an int or a list) → extra stop ids
//   config.json             optional: eos_token_id, read the same way (ignored when absent or not a
//                           number/list, e.g. in our embedded checkpoints' config.json)
//
// The file names are constants joined to the resolved directory, so nothing outside it is read.
// Slow (Python-only) tokenizers without a tokenizer.json are not supported: `save_pretrained` of a
// transformers fast tokenizer writes one.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TokenizerError } from '../core/errors.ts';
import { HfTokenizer, type HfTokenizerConfig } from './hf-tokenizer.ts';

export const tokenizerFiles = {
  tokenizer: 'tokenizer.json',
  config: 'tokenizer_config.json',
  chatTemplate: 'chat_template.jinja',
  generationConfig: 'generation_config.json',
  modelConfig: 'config.json',
} as const;

/** What loadTokenizer takes besides the directory. */
export interface LoadTokenizerOptions {
  /** Extra stop ids on top of the model's own (e.g. a custom end-of-turn token). */
  stopTokenIds?: readonly number[];
}

/** Loads the tokenizer of the model directory `dir` (see the file header for the files read). */
export function loadTokenizer(dir: string, options: LoadTokenizerOptions = {}): HfTokenizer {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new TokenizerError(`tokenizer directory ${dir} does not exist (give a local model directory)`);
  }
  const tokenizerPath = join(root, tokenizerFiles.tokenizer);
  if (!existsSync(tokenizerPath)) {
    throw new TokenizerError(
      `${tokenizerPath}: missing file (a Hugging Face fast tokenizer is needed; transformers' save_pretrained writes one)`,
    );
  }
  const tokenizerJson = readJson(tokenizerPath);
  const configPath = join(root, tokenizerFiles.config);
  const config = existsSync(configPath) ? readJson(configPath) : {};
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new TokenizerError(`${configPath}: expected a JSON object`);
  }
  const stopTokenIds = [
    ...eosIdsOf(join(root, tokenizerFiles.generationConfig)),
    ...eosIdsOf(join(root, tokenizerFiles.modelConfig)),
    ...(options.stopTokenIds ?? []),
  ];
  const templatePath = join(root, tokenizerFiles.chatTemplate);
  let chatTemplates: Map<string, string> | undefined;
  if (existsSync(templatePath)) {
    chatTemplates = new Map([['default', readFileSync(templatePath, 'utf8')]]);
  }
  return new HfTokenizer(tokenizerJson, {
    config: config as HfTokenizerConfig,
    stopTokenIds,
    chatTemplates,
    source: root,
  });
}

/** eos_token_id of a generation_config.json / config.json as a list; [] when absent. */
function eosIdsOf(path: string): number[] {
  if (!existsSync(path)) return [];
  const json = readJson(path) as { eos_token_id?: unknown } | null;
  const value = json?.eos_token_id;
  if (value === undefined || value === null) return [];
  const ids = Array.isArray(value) ? value : [value];
  if (!ids.every((id) => Number.isInteger(id) && id >= 0)) {
    throw new TokenizerError(`${path}: eos_token_id must be a non-negative integer or a list of them`);
  }
  return ids as number[];
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TokenizerError(`${path}: cannot read (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TokenizerError(`${path}: invalid JSON (${(error as Error).message})`);
  }
}
