// The char tokenizer's file formats. Since issue 11 a checkpoint's tokenizer.json is a Hugging Face
// `tokenizer.json` (format "1.0" of the Rust `tokenizers` library), so HF tools read our checkpoints
// without our code; the legacy `{"type":"char","pad":0,"bos":1,"eos":2,"characters":[…]}` (checkpoints
// written before) is still read.
//
// The HF form reproduces CharTokenizer's ids exactly:
// - model: BPE with no merges, so every character of the input is its own token; vocab = the three
//   special tokens at ids 0, 1, 2 and then the characters at ids 3… in code-point order;
// - added_tokens: PAD/BOS/EOS at ids 0, 1, 2, special. They are also in the BPE vocab because the Rust
//   library gives an added token the model's id for its text, and otherwise the next free id;
// - no normalizer, no pre-tokenizer (the whole text is one BPE "word"), no post-processor (encode adds no
//   BOS/EOS, like CharTokenizer.encode); decoder Fuse (tokens joined with no separator).
// Special-token texts contain U+FF5C (fullwidth vertical line, as in DeepSeek's tokenizers), which is not
// in our vocabulary: an added token's text is matched in the input before the model runs, so text
// containing it would tokenize differently — but such text is out of CharTokenizer's vocabulary anyway.
// tokenizer_config.json (written beside it) names them as bos/eos/pad and turns off
// clean_up_tokenization_spaces (on by default in tokenizers.js and older transformers; it would turn
// " ." into "." when decoding).
//
// Deviations (limits): a character outside the vocabulary is dropped by HF tokenizers (no unk token),
// where CharTokenizer throws a TokenizerError; reading the HF form accepts only the exact layout above.
import { z } from 'zod';
import { TokenizerError } from '../core/errors.ts';

/** Texts of PAD, BOS, EOS (ids 0, 1, 2) in the HF form. */
export const charSpecialTokens = ['<｜pad｜>', '<｜bos｜>', '<｜eos｜>'] as const;

export interface LegacyCharTokenizerJson {
  type: 'char';
  pad: 0;
  bos: 1;
  eos: 2;
  characters: string[];
}

const legacySchema = z.object({
  type: z.literal('char'),
  pad: z.literal(0),
  bos: z.literal(1),
  eos: z.literal(2),
  characters: z.array(z.string()),
});

const addedTokenSchema = z.looseObject({
  id: z.number().int(),
  content: z.string(),
  special: z.boolean(),
});

const hfSchema = z.looseObject({
  version: z.literal('1.0'),
  added_tokens: z.array(addedTokenSchema),
  normalizer: z.null(),
  pre_tokenizer: z.null(),
  post_processor: z.null(),
  decoder: z.looseObject({ type: z.literal('Fuse') }),
  model: z.looseObject({
    type: z.literal('BPE'),
    unk_token: z.null().optional(),
    byte_fallback: z.literal(false).optional(),
    continuing_subword_prefix: z.union([z.null(), z.literal('')]).optional(),
    end_of_word_suffix: z.union([z.null(), z.literal('')]).optional(),
    vocab: z.record(z.string(), z.number().int()),
    merges: z.array(z.unknown()).length(0),
  }),
});

export type HfCharTokenizerJson = ReturnType<typeof hfCharTokenizerJson>;

/** The HF tokenizer.json of a char tokenizer whose characters (sorted by code point) have ids 3…. */
export function hfCharTokenizerJson(characters: readonly string[]) {
  const inVocabulary = new Set(characters);
  for (const text of charSpecialTokens) {
    if ([...text].every((character) => inVocabulary.has(character))) {
      throw new TokenizerError(
        `cannot write the tokenizer as tokenizer.json: every character of the special token ${text} is in its vocabulary`,
      );
    }
  }
  const vocab: Record<string, number> = {};
  charSpecialTokens.forEach((text, id) => {
    vocab[text] = id;
  });
  characters.forEach((character, index) => {
    vocab[character] = index + charSpecialTokens.length;
  });
  return {
    version: '1.0' as const,
    truncation: null,
    padding: null,
    added_tokens: charSpecialTokens.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: { type: 'Fuse' as const },
    model: {
      type: 'BPE' as const,
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: [] as string[],
    },
  };
}

/** tokenizer_config.json for the HF form (transformers' PreTrainedTokenizerFast reads it). */
export function hfCharTokenizerConfig(): Record<string, unknown> {
  const [pad, bos, eos] = charSpecialTokens;
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: bos,
    eos_token: eos,
    pad_token: pad,
    unk_token: null,
    add_bos_token: false,
    add_eos_token: false,
    clean_up_tokenization_spaces: false,
  };
}

/**
 * The characters (id 3 onwards) of a char tokenizer in either form. Throws TokenizerError when the JSON
 * is neither, or when an HF file would give different ids than CharTokenizer (specials not at 0–2,
 * ids not contiguous, characters not in code-point order, entries longer than one character).
 */
export function charactersFromJson(json: unknown): string[] {
  if (typeof json === 'object' && json !== null && (json as { type?: unknown }).type === 'char') {
    const parsed = legacySchema.safeParse(json);
    if (!parsed.success) throw invalid('legacy char tokenizer JSON', parsed.error);
    return parsed.data.characters;
  }
  if (typeof json !== 'object' || json === null || !('model' in json)) {
    throw new TokenizerError(
      'invalid char tokenizer JSON: neither a Hugging Face tokenizer.json nor the legacy {"type": "char", …}',
    );
  }
  const parsed = hfSchema.safeParse(json);
  if (!parsed.success)
    throw invalid('tokenizer.json (not a character-level tokenizer of ours)', parsed.error);
  const { vocab } = parsed.data.model;
  const byId: string[] = [];
  for (const [text, id] of Object.entries(vocab)) {
    if (id < 0 || byId[id] !== undefined) throw bad(`id ${id} is negative or used twice`);
    byId[id] = text;
  }
  const count = Object.keys(vocab).length;
  if (byId.length !== count) throw bad(`vocabulary ids are not contiguous from 0 (${count} entries)`);
  const specials = charSpecialTokens.length;
  for (let id = 0; id < specials; id++) {
    const added = parsed.data.added_tokens.find((token) => token.id === id);
    if (!added?.special || added.content !== byId[id]) {
      throw bad(`id ${id} must be a special added token with the vocabulary's text`);
    }
  }
  if (parsed.data.added_tokens.length !== specials) {
    throw bad(`expected exactly ${specials} added tokens (PAD, BOS, EOS)`);
  }
  const characters = byId.slice(specials);
  for (const [index, character] of characters.entries()) {
    if ([...character].length !== 1)
      throw bad(`vocabulary entry ${JSON.stringify(character)} is not one character`);
    if (index > 0 && characters[index - 1].codePointAt(0)! >= character.codePointAt(0)!) {
      throw bad(`characters are not in code-point order at id ${index + specials}`);
    }
  }
  return characters;
}

function bad(problem: string): TokenizerError {
  return new TokenizerError(`invalid char tokenizer.json: ${problem}`);
}

function invalid(what: string, error: z.ZodError): TokenizerError {
  return new TokenizerError(`invalid ${what}: ${z.prettifyError(error).replace(/\n/g, '; ')}`);
}
