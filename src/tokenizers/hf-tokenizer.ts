// A `Tokenizer` (src/core/policy.ts) over a Hugging Face `tokenizer.json` (the "fast tokenizer" file of
// the Rust `tokenizers` library), run by the npm package `@huggingface/tokenizers` (tokenizers.js, the
// tokenizer half of transformers.js) rather than a hand-written BPE. `tokenizer_config.json` supplies what
// tokenizer.json does not hold: which added tokens are BOS / EOS / PAD, extra special tokens, the
// decode-time clean-up flag and the chat template (rendered by chat-template.ts).
//
// Conventions, matching transformers' `apply_chat_template(..., tokenize=True)` and our CharTokenizer:
// - encode(text) never adds BOS/EOS (add_special_tokens=false); special-token text inside `text`
//   (e.g. "<|im_start|>" written by a chat template) IS recognised and becomes its single id.
// - decode(ids) drops special tokens (skip_special_tokens=true); decode(ids, {keepSpecialTokens: true})
//   keeps them.
// - bos is -1 when the model has no BOS token (Qwen2/Qwen3: bos_token is null); promptTokens then
//   prepends nothing. pad falls back to eos when the config names no pad token.
// - stopTokenIds: eos first, then every id of `generation_config.json`'s / `config.json`'s
//   `eos_token_id` (an int or a list): Qwen3 instruct stops on <|im_end|> and <|endoftext|>.
// - vocabSize is the number of ids the tokenizer can produce (largest id + 1). A model's embedding matrix
//   may be larger (Qwen3: 151,669 tokenizer ids, 151,936 embedding rows).
//
// Sources: tokenizer.json format — huggingface/tokenizers (tokenizers/src/tokenizer/serialization.rs);
// tokenizer_config.json keys — transformers' PreTrainedTokenizerBase; tokenizers.js README (what it
// supports, and the Oniguruma regex constructs it cannot reproduce).
// Deviation: a character that a non-byte-level model cannot encode and that has no unk token is dropped
// silently (what both the Rust library and tokenizers.js do), not reported as a TokenizerError.
import { Tokenizer as HfLibraryTokenizer } from '@huggingface/tokenizers';
import { TokenizerError } from '../core/errors.ts';
import type { Tokenizer } from '../core/policy.ts';

/** The parts of tokenizer_config.json that this class reads (others are ignored). */
export interface HfTokenizerConfig {
  bos_token?: SpecialTokenValue;
  eos_token?: SpecialTokenValue;
  pad_token?: SpecialTokenValue;
  unk_token?: SpecialTokenValue;
  additional_special_tokens?: SpecialTokenValue[];
  clean_up_tokenization_spaces?: boolean;
  chat_template?: string | { name: string; template: string }[] | null;
  [key: string]: unknown;
}

/** A special token in tokenizer_config.json: its text, or (older files) an AddedToken object. */
export type SpecialTokenValue = string | { content: string } | null;

export interface HfTokenizerOptions {
  /** tokenizer_config.json contents; {} when the model has none. */
  config?: HfTokenizerConfig;
  /** More stop ids (generation_config.json / config.json `eos_token_id`); eos is always the first. */
  stopTokenIds?: readonly number[];
  /** Chat templates by name, replacing the config's of the same name (chat_template.jinja → 'default'). */
  chatTemplates?: ReadonlyMap<string, string>;
  /** Where the files came from, for error messages (a directory or a file name). */
  source?: string;
}

export interface DecodeOptions {
  /** Keep special tokens (<|im_end|>, …) in the text; default false. */
  keepSpecialTokens?: boolean;
}

/** A Hugging Face tokenizer.json (and tokenizer_config.json) as a Tokenizer, with the model's chat templates. */
export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  /** BOS id, or -1 when the model has no BOS token. */
  readonly bos: number;
  readonly eos: number;
  readonly pad: number;
  /** Ids that end generation: eos, then generation_config's eos_token_id entries (deduplicated). */
  readonly stopTokenIds: readonly number[];
  /** Ids of the special tokens (added tokens marked special, and additional_special_tokens). */
  readonly specialTokenIds: ReadonlySet<number>;
  /** Special-token texts, for chat templates (bosToken is null when the model has none). */
  readonly bosToken: string | null;
  readonly eosToken: string;
  readonly padToken: string;
  /** Chat templates by name ('default' for a single template); empty when the model ships none. */
  readonly chatTemplates: ReadonlyMap<string, string>;
  readonly source: string;
  private readonly library: HfLibraryTokenizer;

  constructor(tokenizerJson: unknown, options: HfTokenizerOptions = {}) {
    const config = options.config ?? {};
    this.source = options.source ?? 'tokenizer.json';
    if (typeof tokenizerJson !== 'object' || tokenizerJson === null || !('model' in tokenizerJson)) {
      throw new TokenizerError(`${this.source}: not a Hugging Face tokenizer.json (no "model" field)`);
    }
    try {
      this.library = new HfLibraryTokenizer(tokenizerJson, config);
    } catch (error) {
      throw new TokenizerError(`${this.source}: cannot build the tokenizer (${(error as Error).message})`);
    }
    // The model's id → text table, added tokens included (tokenizers.js writes them into it).
    this.vocabSize = this.library.model?.vocab.length ?? 0;

    const special = new Set<number>();
    for (const [id, token] of this.library.get_added_tokens_decoder()) if (token.special) special.add(id);
    // An additional special token missing from tokenizer.json cannot be produced by encode: skipped.
    for (const value of config.additional_special_tokens ?? []) {
      const id = this.library.token_to_id(tokenText(value) ?? '');
      if (id !== undefined) special.add(id);
    }

    const bosText = tokenText(config.bos_token);
    this.bosToken = bosText;
    this.bos = bosText === null ? -1 : this.requireId(bosText, 'bos_token');

    const extraStops = [...(options.stopTokenIds ?? [])];
    for (const id of extraStops) this.checkId(id, 'a stop token id');
    const eosText = tokenText(config.eos_token);
    if (eosText !== null) {
      this.eos = this.requireId(eosText, 'eos_token');
    } else if (extraStops.length > 0) {
      this.eos = extraStops[0];
    } else {
      throw new TokenizerError(
        `${this.source}: cannot tell the EOS token: tokenizer_config.json has no eos_token and no generation_config.json or config.json gives eos_token_id`,
      );
    }
    this.eosToken = this.library.id_to_token(this.eos) ?? '';
    special.add(this.eos);
    this.stopTokenIds = [...new Set([this.eos, ...extraStops])];

    const padText = tokenText(config.pad_token);
    this.pad = padText === null ? this.eos : this.requireId(padText, 'pad_token');
    this.padToken = this.library.id_to_token(this.pad) ?? '';
    if (this.bos >= 0) special.add(this.bos);
    special.add(this.pad);
    this.specialTokenIds = special;
    const templates = chatTemplatesOf(config, this.source);
    for (const [name, template] of options.chatTemplates ?? []) templates.set(name, template);
    this.chatTemplates = templates;
  }

  encode(text: string, where?: string): number[] {
    if (typeof text !== 'string') {
      throw new TokenizerError(`cannot encode ${typeof text}${where ? ` in ${where}` : ''}: not a string`);
    }
    if (text.length === 0) return [];
    const ids: number[] = this.library.encode(text, { add_special_tokens: false }).ids;
    const bad = ids.findIndex((id: number) => !Number.isInteger(id));
    if (bad >= 0) {
      const place = where === undefined ? '' : ` in ${where}`;
      throw new TokenizerError(
        `${this.source}: token ${bad} of the text${place} is not in the vocabulary and the model has no unk token`,
      );
    }
    return ids;
  }

  decode(ids: readonly number[], options: DecodeOptions = {}): string {
    for (const id of ids) this.checkId(id, 'a token id to decode');
    const kept = options.keepSpecialTokens ? [...ids] : ids.filter((id) => !this.specialTokenIds.has(id));
    if (kept.length === 0) return '';
    return this.library.decode(kept, { skip_special_tokens: !options.keepSpecialTokens });
  }

  /** The id of a token's text (as stored in the vocabulary, e.g. 'Ġworld'), or undefined. */
  tokenId(token: string): number | undefined {
    return this.library.token_to_id(token);
  }

  /** The vocabulary text of an id, or undefined. */
  tokenText(id: number): string | undefined {
    return this.library.id_to_token(id);
  }

  /** The chat template called `name` (default 'default'); a TokenizerError when the model has none. */
  chatTemplate(name = 'default'): string {
    const template = this.chatTemplates.get(name);
    if (template !== undefined) return template;
    const known = [...this.chatTemplates.keys()];
    throw new TokenizerError(
      known.length === 0
        ? `${this.source}: the model has no chat template (tokenizer_config.json has no chat_template and there is no chat_template.jinja)`
        : `${this.source}: no chat template named '${name}' (known: ${known.join(', ')})`,
    );
  }

  private requireId(text: string, field: string): number {
    const id = this.library.token_to_id(text);
    if (id === undefined) {
      throw new TokenizerError(
        `${this.source}: ${field} ${JSON.stringify(text)} is not in the tokenizer's vocabulary`,
      );
    }
    return id;
  }

  private checkId(id: number, what: string): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) {
      throw new TokenizerError(`${this.source}: ${what} ${id} is outside [0, ${this.vocabSize})`);
    }
  }
}

/** The text of a special-token entry of tokenizer_config.json (null when absent). */
export function tokenText(value: SpecialTokenValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && typeof value.content === 'string') return value.content;
  throw new TokenizerError(`special token entry ${JSON.stringify(value)} is neither a string nor {content}`);
}

/** tokenizer_config.json's chat_template: one string ('default') or a list of {name, template}. */
function chatTemplatesOf(config: HfTokenizerConfig, source: string): Map<string, string> {
  const templates = new Map<string, string>();
  const value = config.chat_template;
  if (value === undefined || value === null) return templates;
  if (typeof value === 'string') {
    templates.set('default', value);
    return templates;
  }
  if (Array.isArray(value)) {
    for (const entry of value) {
      if (typeof entry?.name !== 'string' || typeof entry?.template !== 'string') {
        throw new TokenizerError(`${source}: chat_template list entries must be {name, template} strings`);
      }
      templates.set(entry.name, entry.template);
    }
    return templates;
  }
  throw new TokenizerError(`${source}: chat_template must be a string or a list of {name, template}`);
}
