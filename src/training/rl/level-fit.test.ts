// Level fit: a level or pool problem the starting policy cannot tokenize, fit in its context or finish
// within rollout.maxTokens is refused, naming the level (or file and line). Limits come from the real
// demo-cold checkpoint files.
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CharTokenizer, printableAscii } from '../../policy/tokenizer.ts';
import { additionProblem } from '../../tasks/addition.ts';
import { rlConfigSchema } from './config.ts';
import {
  checkLevelsFit,
  checkPoolFits,
  levelsCutByMaxTokens,
  policyLimits,
  poolCutByMaxTokens,
} from './level-fit.ts';

const demoCold = resolve(import.meta.dirname, '../../../examples/checkpoints/demo-cold');

function config(extra: Record<string, unknown> = {}) {
  return rlConfigSchema.parse({
    init: { checkpoint: demoCold },
    tasks: [{ task: 'addition', difficulties: [1] }],
    train: { steps: 1, learningRate: 0.001 },
    ...extra,
  });
}

describe('level fit', () => {
  const limits = policyLimits(config(), demoCold);

  it("reads the cold start's context and tokenizer", () => {
    expect(limits.contextLength).toBe(128);
    expect(limits.tokenizer.encode('12+34\n')).toHaveLength(6);
  });

  it('accepts 1-8 digit addition (8 digits: at most a 103-token sequence, 83-token solution)', () => {
    const ladder = [{ task: 'addition', difficulties: [1, 2, 3, 4, 5, 6, 7, 8], weight: 1 }];
    expect(() => checkLevelsFit(ladder, limits)).not.toThrow();
    expect(levelsCutByMaxTokens(ladder, 96)).toEqual([]);
  });

  it('refuses a level whose sequences exceed the context, naming the entry and level', () => {
    const entries = [
      { task: 'addition', difficulties: [1], weight: 1 },
      { task: 'addition', difficulties: [9, 10], weight: 1 },
    ];
    // d digits need at most 12d + 7 tokens: BOS + (2d + 2) prompt + 9d column lines + 'A:' + (d + 1) + EOS;
    // 10 digits: 127 fits the context of 128, 11 digits (139) does not.
    expect(() => checkLevelsFit(entries, limits)).not.toThrow();
    entries[1].difficulties = [10, 11];
    expect(() => checkLevelsFit(entries, limits)).toThrow(
      `tasks.1: addition difficulty 11: sequences need up to 139 tokens (BOS + prompt + solution + EOS), more than the context of the cold start`,
    );
  });

  it('advises (does not refuse) on levels whose worked solutions exceed rollout.maxTokens', () => {
    // d digits: d column lines of 9 characters + 'A:' + up to d + 1 digits = 10d + 3; 8 digits: 83.
    const entries = [{ task: 'addition', difficulties: [7, 8], weight: 1 }];
    expect(levelsCutByMaxTokens(entries, 83)).toEqual([]);
    const advice = levelsCutByMaxTokens(entries, 82);
    expect(advice).toHaveLength(1);
    expect(advice[0]).toMatch(
      /^tasks\.0: addition difficulty 8: worked solutions take up to 83 tokens, more than rollout\.maxTokens \(82\)/,
    );
    expect(levelsCutByMaxTokens(entries, 72)).toHaveLength(2);
  });

  it('refuses a level the cold start cannot tokenize, naming the level and the character', () => {
    const dir = mkdtempSync(join(tmpdir(), 'curricula-nofit-'));
    cpSync(demoCold, dir, { recursive: true });
    const withoutPlus = new CharTokenizer(printableAscii().filter((character) => character !== '+'));
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(withoutPlus.toJSON()));
    const narrow = policyLimits(config({ init: { checkpoint: dir } }), dir);
    expect(() =>
      checkLevelsFit([{ task: 'addition', difficulties: [2], weight: 1 }], narrow, 'tasks'),
    ).toThrow(
      /^tasks\.0: addition difficulty 2: the cold start .* cannot tokenize this level \(character '\+'/,
    );
  });

  it('a fresh model takes its context from the model block', () => {
    const fresh = rlConfigSchema.parse({
      model: { preset: 'small' },
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 1, learningRate: 0.001 },
    });
    const small = policyLimits(fresh, null);
    expect(small.source).toBe('the fresh model');
    expect(() => checkLevelsFit([{ task: 'addition', difficulties: [8], weight: 1 }], small)).toThrow(
      /addition difficulty 8: sequences need up to 103 tokens .* more than the context of the fresh model \(64\)/,
    );
  });

  it('refuses a pool problem that does not fit, naming file and line', () => {
    const long = additionProblem('12345678901', '1'); // 2 + 24 + 99 + 2 + 11 = 138 tokens
    const entries = [
      { problem: additionProblem('1', '2'), line: 1 },
      { problem: long, line: 4 },
    ];
    expect(() => checkPoolFits(entries, 'p.jsonl', limits)).toThrow(
      `p.jsonl line 4: problem '${long.id}' takes 138 tokens (BOS + prompt + solution + EOS), more than the context`,
    );
    // '1+2+0=03\nA:3' is 12 characters, the 11-digit solution 112.
    expect(poolCutByMaxTokens(entries, 'p.jsonl', 112)).toEqual([]);
    expect(poolCutByMaxTokens(entries, 'p.jsonl', 11)).toEqual([
      'p.jsonl: 2 of 2 problems have worked solutions longer than rollout.maxTokens (11), first on line 1; their completions are cut before the answer line and cannot be right',
    ]);
  });
});
