// A checkpoint's tokenizer.json as canonical JSON text, to check that a teacher and a student share one
// tokenizer (RLT scores the teacher's tokens with the student) before either model is loaded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';

/** `modelPath`: a model directory; `key`: the config key that named it (for the error message). */
export function readTokenizerJson(modelPath: string, key: string): string {
  try {
    return JSON.stringify(JSON.parse(readFileSync(join(modelPath, 'tokenizer.json'), 'utf8')));
  } catch (error) {
    throw new ConfigError(`${key}: cannot read tokenizer.json: ${(error as Error).message}`);
  }
}
