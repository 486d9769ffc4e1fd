// Character-level tokenizer for the embedded model. Ids: PAD=0, BOS=1, EOS=2, then one id per character
// in code-point order. `suiteTokenizer()` fixes the vocabulary to printable ASCII, newline and every
// registered task's alphabet, so a checkpoint's vocabulary does not depend on which tasks it was trained on.
// Its JSON (toJSON, a checkpoint's tokenizer.json) is a Hugging Face tokenizer.json that gives the same
// ids; fromJSON also reads the legacy {"type":"char",…} form (char-tokenizer-json.ts).
import { describeCharacter } from '../core/describe-character.ts';
import { TokenizerError } from '../core/errors.ts';
import type { Tokenizer } from '../core/policy.ts';
import { tasks } from '../tasks/index.ts';
import {
  charactersFromJson,
  type HfCharTokenizerJson,
  hfCharTokenizerConfig,
  hfCharTokenizerJson,
} from './char-tokenizer-json.ts';

const specialCount = 3;

export type CharTokenizerJson = HfCharTokenizerJson;

export class CharTokenizer implements Tokenizer {
  readonly pad = 0;
  readonly bos = 1;
  readonly eos = 2;
  readonly vocabSize: number;
  /** Vocabulary characters, id = index + 3. */
  readonly characters: readonly string[];
  private readonly idOf = new Map<string, number>();

  /** `characters`: single code points; they are de-duplicated and sorted by code point. */
  constructor(characters: Iterable<string>) {
    const unique = [...new Set(characters)];
    for (const character of unique) {
      if ([...character].length !== 1) {
        throw new TokenizerError(
          `tokenizer vocabulary entries must be single characters, got ${describeCharacter(character)}`,
        );
      }
    }
    this.characters = unique.sort((a, b) => a.codePointAt(0)! - b.codePointAt(0)!);
    for (const [index, character] of this.characters.entries())
      this.idOf.set(character, index + specialCount);
    this.vocabSize = this.characters.length + specialCount;
  }

  encode(text: string, where?: string): number[] {
    const ids: number[] = [];
    let index = 0;
    for (const character of text) {
      const id = this.idOf.get(character);
      if (id === undefined) {
        const place = where === undefined ? '' : ` in ${where}`;
        throw new TokenizerError(
          `character ${describeCharacter(character)} at index ${index}${place} is not in the tokenizer vocabulary`,
        );
      }
      ids.push(id);
      index += character.length;
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    let text = '';
    for (const id of ids) {
      if (id >= specialCount && id < this.vocabSize) text += this.characters[id - specialCount];
    }
    return text;
  }

  /** The Hugging Face tokenizer.json form (what checkpoints store). */
  toJSON(): CharTokenizerJson {
    return hfCharTokenizerJson(this.characters);
  }

  /** tokenizer_config.json to write beside toJSON()'s file: names PAD/BOS/EOS for HF tools. */
  tokenizerConfig(): Record<string, unknown> {
    return hfCharTokenizerConfig();
  }

  /** Reads toJSON()'s form or the legacy {"type":"char",…} one. */
  static fromJSON(json: unknown): CharTokenizer {
    return new CharTokenizer(charactersFromJson(json));
  }
}

/** Printable ASCII (space to '~') and newline. */
export function printableAscii(): string[] {
  const characters = ['\n'];
  for (let code = 0x20; code <= 0x7e; code++) characters.push(String.fromCharCode(code));
  return characters;
}

/** The fixed suite vocabulary: printable ASCII, newline and the alphabets of all registered tasks. */
export function suiteTokenizer(): CharTokenizer {
  const characters = printableAscii();
  for (const name of tasks.names()) characters.push(...tasks.get(name).alphabet);
  return new CharTokenizer(characters);
}
