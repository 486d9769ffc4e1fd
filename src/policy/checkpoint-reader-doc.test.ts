// docs/checkpoint-reader.py, the self-contained PyTorch reader of docs/checkpoint-format.md, run with
// /usr/bin/python3 on the real demo-cold checkpoint: its token ids ([BOS] prompt answer [EOS]) and its
// per-token log-probs must equal the product's (CharTokenizer, EmbeddedBackend.forward) to 1e-4. Skipped,
// saying why, where python3 cannot import torch.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBackend } from './embedded-backend.ts';

const python = '/usr/bin/python3';
const script = join(process.cwd(), 'docs', 'checkpoint-reader.py');
const checkpoint = join(process.cwd(), 'examples', 'checkpoints', 'demo-cold');

const probe = spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8', timeout: 60_000 });
const hasTorch = probe.status === 0;
const skipReason = hasTorch
  ? ''
  : ` (SKIPPED: \`${python} -c 'import torch'\` failed: ${(probe.stderr || String(probe.error ?? '')).trim().split('\n').at(-1)})`;

if (!hasTorch) console.warn(`checkpoint-reader-doc.test.ts${skipReason}`);

function reader(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(python, [script, checkpoint, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const PAIRS: [string, string][] = [
  ['What is 2+3?', '5'],
  ['Compute 47+85.\nAnswer: ', '132'],
  // Long enough to use most of the 128-token context (positions up to 125).
  [
    'Please. Sort the numbers: 9 3 7 1 8 2 6 4 5 0; reply with them in increasing order, separated by spaces.',
    ' 0 1 2 3 4 5 6 7 8 9',
  ],
];

describe.skipIf(!hasTorch)(`docs/checkpoint-reader.py (PyTorch, no Curricula code)${skipReason}`, () => {
  let backend: EmbeddedBackend;
  beforeAll(async () => {
    backend = await EmbeddedBackend.load(checkpoint);
  });

  it('tokenizes [BOS] prompt answer [EOS] and reads the same log-probs as EmbeddedBackend.forward (1e-4)', async () => {
    const run = reader(PAIRS.flat());
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(PAIRS.length);
    const tokenizer = backend.tokenizer;
    const expectedTokens = PAIRS.map(([prompt, answer]) => [
      tokenizer.bos,
      ...tokenizer.encode(prompt),
      ...tokenizer.encode(answer),
      tokenizer.eos,
    ]);
    expect(lines.map((line) => line.tokens)).toEqual(expectedTokens);
    expect(expectedTokens[2].length).toBeGreaterThan(120);
    const ours = await backend.forward(expectedTokens);
    let worst = 0;
    lines.forEach((line, index) => {
      expect(line.logprobs).toHaveLength(expectedTokens[index].length - 1);
      for (const [t, value] of (line.logprobs as number[]).entries()) {
        worst = Math.max(worst, Math.abs(value - ours[index][t]));
      }
      // The answer's score: its tokens and EOS, given [BOS] and the prompt.
      const start = 1 + tokenizer.encode(PAIRS[index][0]).length;
      expect(line.answer_start).toBe(start);
      const answer = ours[index].slice(start - 1).reduce((sum, value) => sum + value, 0);
      expect(Math.abs(line.answer_logprob - answer)).toBeLessThan(1e-3);
    });
    expect(worst).toBeLessThan(1e-4);
  }, 120_000);

  it('refuses a character outside the vocabulary with one line and exit 2', () => {
    const run = reader(['What is 2+3?', 'fünf']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      "checkpoint-reader: answer: character 'ü' at 1 is not in the vocabulary",
    ]);
  }, 120_000);
});
