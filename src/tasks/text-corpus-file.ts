// Reading a plain-text corpus for the `text-corpus` task family (text-corpus.ts) and cutting it into
// problems: a list of cut positions, each with its prefix, its target (the next word or the next line)
// and its side of the train/held-out partition.
//
// Checks at config time (before any model loads): the file must exist and hold text, and every character
// must be in the char tokenizer's vocabulary (printable ASCII and newline, src/policy/tokenizer.ts
// printableAscii: the embedded checkpoints' tokenizer). The first offending character is named, escaped,
// with its line:column (1-based), in a ConfigError. CRLF line ends are read as LF; any other \r is refused.
//
// Partition by position: the lines are grouped in consecutive blocks of `blockLines` lines; a block's place
// in [0, 1) is a hash of its index and text, and every cut inside the block takes it (Problem.metadata.
// partitionPoint, read by src/tasks/generate-set.ts isHeldOut). A prefix never reaches before its block's
// first character, so the prompts and targets of held-out problems and of training problems come from
// disjoint character ranges of the file.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeCharacter } from '../core/describe-character.ts';
import { ConfigError } from '../core/errors.ts';

export type CutUnit = 'token' | 'segment';

export interface Cut {
  /** Character offset of the cut in the (LF-normalised) text. */
  position: number;
  /** Character offset where the prefix starts (never before its block's start). */
  start: number;
  /** 1-based line of the cut. */
  line: number;
  block: number;
  /** Text from the block start to the cut, trimmed from the left to the window. */
  prefix: string;
  /** The next word (unit token) or the next line, trimmed (unit segment). */
  target: string;
  /** The rest of the cut's line from the cut (for RPT's prefix-matching reward). */
  continuation: string;
  /** The block's place in [0, 1) under the held-out partition. */
  partitionPoint: number;
}

export interface CorpusCutOptions {
  unit: CutUnit;
  /** Longest prefix, in characters (the prompt is trimmed from the left to this). */
  window: number;
  blockLines: number;
  /** Longest target, in characters; longer targets are not cut. */
  maxTarget: number;
}

/** Printable ASCII (space to '~') and newline: the vocabulary of src/policy/tokenizer.ts printableAscii
 * (not imported: the tokenizer module imports the task registry, which imports this file). */
export const corpusVocabulary: readonly string[] = [
  '\n',
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
];
const vocabulary = new Set(corpusVocabulary);

/** Throws a ConfigError naming the first character outside the vocabulary and its line:column. */
export function checkVocabulary(text: string, where: string): void {
  let line = 1;
  let column = 1;
  for (const character of text) {
    if (!vocabulary.has(character)) {
      throw new ConfigError(
        `${where}: character ${describeCharacter(character)} at line ${line}:${column} is outside the tokenizer's vocabulary (printable ASCII and newline)`,
      );
    }
    if (character === '\n') {
      line++;
      column = 1;
    } else column++;
  }
}

/** The corpus text (LF line ends), checked; ConfigError when missing, empty or out of vocabulary. */
export function readCorpus(path: string, where: string): string {
  const full = resolve(path);
  let text: string;
  try {
    if (!statSync(full).isFile()) throw new ConfigError(`${where}: ${path} is not a file`);
    text = readFileSync(full, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${where}: cannot read the corpus ${path} (${(error as Error).message})`);
  }
  text = text.replace(/\r\n/g, '\n');
  if (text.trim().length === 0) throw new ConfigError(`${where}: the corpus ${path} is empty`);
  checkVocabulary(text, `${where}: ${path}`);
  return text;
}

function blockPoint(index: number, text: string): number {
  const hex = createHash('sha256').update(`text-corpus-block\u0000${index}\u0000${text}`).digest('hex');
  return Number.parseInt(hex.slice(0, 13), 16) / 2 ** 52;
}

/** Every cut of the text, in file order (deterministic; no randomness). */
export function cutCorpus(text: string, options: CorpusCutOptions): Cut[] {
  const lines = text.split('\n');
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    lineStarts.push(offset);
    offset += line.length + 1;
  }
  const cuts: Cut[] = [];
  for (let first = 0; first < lines.length; first += options.blockLines) {
    const block = first / options.blockLines;
    const last = Math.min(lines.length, first + options.blockLines);
    const blockStart = lineStarts[first];
    const blockText = lines.slice(first, last).join('\n');
    const partitionPoint = blockPoint(block, blockText);
    const add = (position: number, lineIndex: number, target: string, continuation: string) => {
      if (position <= blockStart || target.length === 0 || target.length > options.maxTarget) return;
      const from = Math.max(blockStart, position - options.window);
      const prefix = text.slice(from, position);
      if (prefix.trim().length === 0) return;
      cuts.push({
        position,
        start: from,
        line: lineIndex + 1,
        block,
        prefix,
        target,
        continuation,
        partitionPoint,
      });
    };
    for (let i = first; i < last; i++) {
      const line = lines[i];
      if (options.unit === 'segment') {
        add(lineStarts[i], i, line.trim(), line);
        continue;
      }
      for (const match of line.matchAll(/\S+/g)) {
        const index = match.index ?? 0;
        add(lineStarts[i] + index, i, match[0], line.slice(index));
      }
    }
  }
  return cuts;
}
