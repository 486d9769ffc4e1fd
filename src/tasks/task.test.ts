import { describe, expect, it } from 'vitest';
import { tasks } from './index.ts';
import { sequenceLengthTable, sequenceTokens } from './lengths.ts';
import { modularChainProblem } from './modular-chain.ts';
import { extractAnswerLine, problemId, solutionSteps } from './task.ts';

describe('extractAnswerLine', () => {
  it('takes the last line that starts with A:, trimmed', () => {
    expect(extractAnswerLine('A:12')).toBe('12');
    expect(extractAnswerLine('work\nA: 12 \n')).toBe('12');
    expect(extractAnswerLine('A:1\nmore\nA:2\ntrailing')).toBe('2');
    expect(extractAnswerLine('xA:12')).toBeNull();
    expect(extractAnswerLine('A:')).toBeNull();
    expect(extractAnswerLine('no answer')).toBeNull();
  });
});

describe('solutionSteps', () => {
  it('splits a solution into step lines and drops the answer line', () => {
    expect(solutionSteps('8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825')).toEqual([
      '8+7+0=15',
      '5+6+1=12',
      '7+0+1=08',
    ]);
    expect(solutionSteps('A:3')).toEqual([]);
  });
});

describe('problemId', () => {
  it('depends on task, difficulty and prompt only', () => {
    expect(problemId('addition', 3, '758+67\n')).toBe(problemId('addition', 3, '758+67\n'));
    expect(problemId('addition', 3, '758+67\n')).not.toBe(problemId('addition', 3, '758+68\n'));
    expect(problemId('addition', 3, '758+67\n')).toMatch(/^addition-3-[0-9a-f]{12}$/);
  });
});

describe('sequence lengths', () => {
  it('attains the exact bounds of addition (12d+7), string-compose (15d+16) and modular-chain (13k+16)', () => {
    expect(sequenceLengthTable(tasks.get('addition'), { samples: 400 }).map((row) => row.sampled)).toEqual([
      19, 31, 43, 55, 67, 79, 91, 103, 115, 127, 139, 151,
    ]);
    expect(
      sequenceLengthTable(tasks.get('string-compose'), { samples: 400 }).map((row) => row.sampled),
    ).toEqual([31, 46, 61, 76, 91, 106]);
    // the longest modular chain (two-digit numbers everywhere) is rare, so build one: 12+11 = 23 ≡ 10 (mod 13)
    const chain = modularChainProblem(12, [{ operation: '+', operand: 11 }], 13);
    expect(chain.prompt + chain.solution).toBe('mod 13:12;+11\n12+11=10\nA:10');
    expect(sequenceTokens(chain.prompt, chain.solution)).toBe(
      tasks.get('modular-chain').maxSequenceTokens!(1),
    );
  });
});
