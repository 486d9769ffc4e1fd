// Bad teacher config is refused with one clear line before any model is loaded or any file written:
// through train() (no run directory appears) and validateRlConfig. Covers a missing checkpoint, a
// tokenizer that differs from the student's (read from tokenizer.json: the teacher's weights are never
// loaded — their vocabulary would not even match), names (duplicate, reserved, unknown), strict keys, a
// remote teacher without its backend's block, and privileged-hint's scorer (initial without init,
// unknown teacher, both teacher.opd and privileged-hint). The built-tokenizer check (remote teachers)
// compares ids on probe texts.
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import { CharTokenizer, printableAscii, suiteTokenizer } from '../../../policy/tokenizer.ts';
import { tokenizerMismatch } from '../../../teachers/tokenizer-match.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { validateRlConfig } from '../../rl/setup.ts';
import { train } from '../../rl/train.ts';

const demo = 'examples/checkpoints/demo-cold';

const config = (runsDir: string, extra: object) =>
  rlConfigSchema.parse({
    name: 'teachers',
    runsDir,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [2] }],
    poolSize: 3,
    train: { steps: 1, batchSize: 2, learningRate: 1e-4 },
    policy: { workers: 1 },
    ...extra,
  });

/** train() rejects with `message` and leaves no run directory behind. */
async function refused(extra: object, message: RegExp): Promise<void> {
  const runsDir = mkdtempSync(join(tmpdir(), 'teachers-refused-'));
  await expect(train(config(runsDir, extra))).rejects.toThrow(message);
  expect(existsSync(join(runsDir, 'teachers'))).toBe(false);
}

/** A copy of demo-cold whose tokenizer.json has one character fewer (every later id shifts). */
function otherTokenizerCheckpoint(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teacher-other-tokenizer-'));
  for (const file of ['config.json', 'model.safetensors', 'tokenizer_config.json']) {
    copyFileSync(join(demo, file), join(dir, file));
  }
  const tokenizer = new CharTokenizer(printableAscii().filter((character) => character !== '!'));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer.toJSON()));
  return dir;
}

describe('teacher setup refusals', () => {
  it('a missing checkpoint and a different tokenizer, before any model loads or file is written', async () => {
    await refused(
      { teacher: { pool: [{ name: 'big', checkpoint: 'runs/nowhere' }], opd: {} } },
      /teacher\.pool\.0 \(big\): checkpoint runs\/nowhere does not exist/,
    );
    await refused(
      { teacher: { pool: [{ name: 'other', checkpoint: otherTokenizerCheckpoint() }], opd: {} } },
      /teacher\.pool\.0 \(other\): its tokenizer differs from the student's \(examples\/checkpoints\/ladder-cold\)/,
    );
  }, 30_000);

  it('names, keys and remote blocks', () => {
    const check = (teacher: object) => () => validateRlConfig(config('runs', { teacher }));
    const one = { name: 'demo', checkpoint: demo };
    expect(check({ pool: [one, one] })).toThrow(/the name 'demo' is used twice/);
    expect(check({ pool: [{ ...one, name: 'initial' }] })).toThrow(/'initial' is reserved/);
    expect(check({ pool: [one], opd: { teacher: 'wide' } })).toThrow(
      /teacher\.opd\.teacher 'wide' is not in teacher\.pool \(demo\)/,
    );
    expect(check({ opd: {} })).toThrow(/teacher\.opd needs a teacher in teacher\.pool/);
    expect(check({ pool: [{ name: 'remote', policy: { backend: 'tinker' } }] })).toThrow(
      /teacher\.pool\.0 \(remote\): policy\.backend tinker needs a policy\.tinker block/,
    );
    expect(check({ pool: [{ name: 'local', policy: {} }] })).toThrow(
      /given by checkpoint, not by a policy block/,
    );
    expect(() => config('runs', { teacher: { pool: [one], opd: { coeff: 2 } } })).toThrow(/coeff/);
    expect(() =>
      config('runs', { teacher: { pool: [{ name: 'both', checkpoint: demo, policy: {} }] } }),
    ).toThrow(/either checkpoint \(embedded\) or policy \(remote\)/);
    expect(() => config('runs', { teacher: { pool: [{ name: 'Bad Name', checkpoint: demo }] } })).toThrow(
      /teacher name/,
    );
  });

  it("privileged-hint's scorer: teacher names, init, and no second teacher term", async () => {
    await refused(
      { guidance: { name: 'privileged-hint', options: { teacher: 'wide' } } },
      /teacher 'wide' is neither initial, current nor a teacher\.pool name \(pool empty\)/,
    );
    await refused(
      {
        guidance: { name: 'privileged-hint', options: { teacher: 'demo' } },
        teacher: { pool: [{ name: 'demo', checkpoint: demo }], opd: {} },
      },
      /brings its own distillation term; remove teacher\.opd/,
    );
    const runsDir = mkdtempSync(join(tmpdir(), 'teachers-refused-'));
    const fresh = rlConfigSchema.parse({
      ...config(runsDir, { guidance: { name: 'privileged-hint' } }),
      init: undefined,
      model: { preset: 'tiny' },
    });
    await expect(train(fresh)).rejects.toThrow(/teacher 'initial' is a frozen copy of init\.checkpoint/);
    await expect(train(fresh)).rejects.toBeInstanceOf(ConfigError);
  }, 30_000);

  it('built tokenizers: special ids, vocabulary and probe ids', () => {
    const suite = suiteTokenizer();
    expect(tokenizerMismatch(suite, suiteTokenizer(), ['12+34='])).toBeNull();
    const fewer = new CharTokenizer(printableAscii().filter((character) => character !== '!'));
    expect(tokenizerMismatch(suite, fewer, ['12+34='])).toMatch(/^vocabSize 98 \(student 99\)/);
    // Same size, '!' swapped for 'é' (sorted last): every id after '!' moves down by one.
    const shifted = new CharTokenizer([...printableAscii().filter((character) => character !== '!'), 'é']);
    expect(shifted.vocabSize).toBe(suite.vocabSize);
    expect(tokenizerMismatch(suite, shifted, ['12+34='])).toMatch(/"12\+34=" encodes as/);
  });
});
