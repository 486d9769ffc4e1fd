// The teacher pool on a real embedded checkpoint (demo-cold, one worker): score is the backend's own
// forward, sample its own sampler; a teacher that throws, hangs past the timeout, or returns malformed
// rows rejects with a TeacherCallError and is counted in teacher/failures (reset per step); close() closes
// owned teachers and leaves borrowed ones (the policy as its own teacher) open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyBackend } from '../core/policy.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { TeacherCallError, TeacherPool } from './teacher-pool.ts';

let demo: PolicyBackend;
beforeAll(async () => {
  demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
});
afterAll(async () => {
  await demo.close?.();
});

/** A teacher backend whose forward does what `behaviour` says (the embedded one otherwise). */
function faulty(behaviour: 'throw' | 'hang' | 'short'): PolicyBackend {
  return {
    tokenizer: demo.tokenizer,
    contextLength: demo.contextLength,
    sample: demo.sample.bind(demo),
    forward: async (sequences: number[][]) => {
      if (behaviour === 'throw') throw new Error('teacher server said 500');
      if (behaviour === 'hang') return new Promise<number[][]>(() => {});
      return (await demo.forward(sequences)).map((row) => row.slice(1));
    },
    forwardBackward: () => Promise.reject(new Error('frozen')),
    optimStep: () => Promise.reject(new Error('frozen')),
    save: () => Promise.reject(new Error('frozen')),
  };
}

describe('TeacherPool', () => {
  const sequence = () => [demo.tokenizer.bos, ...demo.tokenizer.encode('12+34=', 'test')];

  it('scores with the teacher forward and samples with its sampler', async () => {
    const pool = new TeacherPool([['demo', demo]], 10_000, new Set(['demo']));
    const scores = await pool.score([sequence()]);
    expect(scores).toEqual(await demo.forward([sequence()]));
    const options = { n: 2, temperature: 1, topP: 1, maxTokens: 8, seed: 5 };
    expect(await pool.sample([sequence()], options, { teacher: 'demo' })).toEqual(
      await demo.sample([sequence()], options),
    );
    const metrics = pool.takeMetrics();
    expect(metrics['teacher/failures']).toBe(0);
    expect(metrics['teacher/calls']).toBe(2);
    expect(metrics['perf/teacher/score_ms']).toBeGreaterThan(0);
  });

  it('counts a throwing, a hanging and a malformed teacher as failures, per step', async () => {
    const pool = new TeacherPool(
      [
        ['throws', faulty('throw')],
        ['hangs', faulty('hang')],
        ['short', faulty('short')],
      ],
      50,
    );
    await expect(pool.score([sequence()], { teacher: 'throws' })).rejects.toThrow(
      /teacher 'throws' score failed: teacher server said 500/,
    );
    await expect(pool.score([sequence()], { teacher: 'hangs' })).rejects.toThrow(/timed out after 50 ms/);
    await expect(pool.score([sequence()], { teacher: 'short' })).rejects.toBeInstanceOf(TeacherCallError);
    await expect(pool.score([sequence()], { teacher: 'short' })).rejects.toThrow(/5 log-probs for 6/);
    expect(pool.takeMetrics()['teacher/failures']).toBe(4);
    expect(pool.takeMetrics()['teacher/failures']).toBe(0);
    expect(() => pool.backend('nobody')).toThrow(
      /no teacher 'nobody' in the pool; known: throws, hangs, short/,
    );
  });

  it('closes owned teachers only', async () => {
    const closed: string[] = [];
    const member = (name: string): PolicyBackend => ({
      ...faulty('throw'),
      close: async () => {
        closed.push(name);
      },
    });
    await new TeacherPool(
      [
        ['owned', member('owned')],
        ['current', member('current')],
      ],
      50,
      new Set(['current']),
    ).close();
    expect(closed).toEqual(['owned']);
  });
});
