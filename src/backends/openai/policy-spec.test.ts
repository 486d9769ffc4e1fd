// `--tokenizer <dir>` of `eval --policy`: our char tokenizer (exact ids, CharTokenizer) or a Hugging Face
// model directory (HfTokenizer), and one clear line for a directory without a tokenizer.json.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { qwen3ModelDir } from '../../testing/tokenizers/test-helpers.ts';
import { HfTokenizer } from '../../tokenizers/hf-tokenizer.ts';
import { readTokenizer } from './policy-spec.ts';

describe('readTokenizer (--tokenizer of eval --policy)', () => {
  it('reads the embedded char tokenizer exactly, and a Hugging Face model directory as HfTokenizer', () => {
    const char = readTokenizer('examples/checkpoints/demo-cold');
    expect(char).toBeInstanceOf(CharTokenizer);
    // ids = 3 + the character's index in demo-cold's vocabulary ('\n', ' ', '!', … : '1' 21, '2' 22, '+' 15, '7' 27, '=' 33).
    expect(char.encode('12+7=')).toEqual([21, 22, 15, 27, 33]);
    const qwen = readTokenizer(qwen3ModelDir());
    expect(qwen).toBeInstanceOf(HfTokenizer);
    // "Hello" is one token in Qwen3's vocabulary (id 9707, read from its tokenizer.json).
    expect(qwen.encode('Hello')).toEqual([9707]);
  });

  it('names a directory without tokenizer.json, or with a file that is not JSON', () => {
    const empty = mkdtempSync(join(tmpdir(), 'curricula-tok-'));
    expect(() => readTokenizer(empty)).toThrow(/no tokenizer.json there/);
    writeFileSync(join(empty, 'tokenizer.json'), '{"model": ');
    expect(() => readTokenizer(empty)).toThrow(/not JSON/);
  });
});
