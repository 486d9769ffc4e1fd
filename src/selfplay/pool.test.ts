import { describe, expect, it } from 'vitest';
import { additionProblem } from '../tasks/addition.ts';
import { GeneratedPool } from './pool.ts';

function filled(limit: number): GeneratedPool {
  const pool = new GeneratedPool(limit);
  for (let i = 0; i < 5; i++) {
    const problem = additionProblem(String(10 + i), '7');
    pool.record({ admitted: { problem, key: `addition:7+${10 + i}`, passRate: 0.5, step: i } });
    pool.record({ rejected: i % 2 === 0 ? 'too-easy' : 'unparsable' });
  }
  return pool;
}

describe('GeneratedPool', () => {
  it('keeps the newest poolLimit problems and counts every outcome', () => {
    const pool = filled(3);
    expect(pool.problems().map((problem) => problem.prompt)).toEqual(['12+07\n', '13+07\n', '14+07\n']);
    expect(pool.metrics()).toMatchObject({
      'selfplay/proposed': 10,
      'selfplay/admitted': 5,
      'selfplay/pool_size': 3,
      'selfplay/rejected/too-easy': 3,
      'selfplay/rejected/unparsable': 2,
      'selfplay/rejected/held-out': 0,
    });
    expect(pool.keys().has('addition:7+10')).toBe(false);
  });

  it('restores exactly from its JSON state (as a checkpoint stores it), and rejects a malformed one', () => {
    const pool = filled(4);
    const restored = GeneratedPool.restore(4, JSON.parse(JSON.stringify(pool.state())));
    expect(restored.state()).toEqual(pool.state());
    expect(restored.problems()).toEqual(pool.problems());
    // The restored pool evolves identically.
    const next = { problem: additionProblem('99', '1'), key: 'addition:1+99', passRate: 0.4, step: 9 };
    pool.record({ admitted: next });
    restored.record({ admitted: next });
    expect(restored.state()).toEqual(pool.state());
    expect(() => GeneratedPool.restore(4, { version: 1, entries: [{}], counts: {} })).toThrow(/entry 0/);
    expect(() => GeneratedPool.restore(4, null)).toThrow(/expected/);
    const bad = JSON.parse(JSON.stringify(pool.state()));
    delete bad.counts.rejected['too-hard'];
    expect(() => GeneratedPool.restore(4, bad)).toThrow(/counts/);
  });
});
