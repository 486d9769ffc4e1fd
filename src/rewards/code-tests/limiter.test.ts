// The sandbox pool's limiter: never more than `size` tasks at once, FIFO, slots released on failure.
import { describe, expect, it } from 'vitest';
import { Limiter } from './limiter.ts';

describe('Limiter', () => {
  it('caps concurrency, keeps order and releases slots when a task throws', async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (id: number) => async () => {
      started.push(id);
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (id === 1) throw new Error('boom');
      return id;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((id) => limiter.run(task(id))));
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results[1].status).toBe('rejected');
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    expect(limiter.running).toBe(0);
    expect(() => new Limiter(0)).toThrow();
  });
});
