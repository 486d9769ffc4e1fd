// Preference pairs for `curricula train-rm`: JSONL lines `{"prompt", "chosen", "rejected"}` (TRL's
// explicit-prompt preference format), split into training and held-out pairs by a hash of the prompt, so
// all pairs of one prompt sit on one side (no prompt is both trained and scored). A line that is not such
// an object, has an empty or non-string field, or chosen equal to rejected is a DataError naming file:line.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataError } from '../../core/errors.ts';

export interface PreferencePair {
  line: number;
  prompt: string;
  chosen: string;
  rejected: string;
}

export function parsePairs(text: string, file: string): PreferencePair[] {
  const pairs: PreferencePair[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new DataError(`${file}:${line}: not JSON (${(error as Error).message})`);
    }
    const record = value as Record<string, unknown> | null;
    if (record === null || typeof record !== 'object' || Array.isArray(record)) {
      throw new DataError(`${file}:${line}: expected an object {prompt, chosen, rejected}`);
    }
    for (const key of ['prompt', 'chosen', 'rejected'] as const) {
      if (typeof record[key] !== 'string') throw new DataError(`${file}:${line}: '${key}' must be a string`);
    }
    const { prompt, chosen, rejected } = record as { prompt: string; chosen: string; rejected: string };
    if (chosen === '' || rejected === '')
      throw new DataError(`${file}:${line}: chosen and rejected must be non-empty`);
    if (chosen === rejected)
      throw new DataError(`${file}:${line}: chosen equals rejected (no preference to learn)`);
    pairs.push({ line, prompt, chosen, rejected });
  }
  if (pairs.length === 0) throw new DataError(`${file}: no preference pairs`);
  return pairs;
}

export function readPairs(file: string): PreferencePair[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new DataError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parsePairs(text, file);
}

/** Held out when the prompt's hash falls below the fraction (deterministic, independent of file order). */
export function isHeldOut(prompt: string, fraction: number): boolean {
  const value = createHash('sha256').update(prompt).digest().readUInt32BE(0) / 2 ** 32;
  return value < fraction;
}
