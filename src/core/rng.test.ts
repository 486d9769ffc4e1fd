import { describe, expect, it } from 'vitest';
import { Rng } from './rng.ts';

describe('Rng', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const seqA = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(seqA);
  });

  it('restores from its state exactly', () => {
    const a = new Rng(7);
    for (let i = 0; i < 10; i++) a.next();
    const b = Rng.fromState(a.state());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(Array.from({ length: 20 }, () => a.next()));
  });

  it('gives uniform floats in [0,1) with the right mean and ints within bounds', () => {
    const rng = new Rng(1);
    let sum = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const x = rng.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      sum += x;
    }
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.01);
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[rng.int(0, 2)]++;
    for (const count of counts) expect(Math.abs(count - 1000)).toBeLessThan(120);
  });

  it('samples categorical weights and Beta means correctly', () => {
    const rng = new Rng(3);
    const counts = [0, 0];
    for (let i = 0; i < 4000; i++) counts[rng.categorical([1, 3])]++;
    expect(Math.abs(counts[1] / 4000 - 0.75)).toBeLessThan(0.03);
    let sum = 0;
    for (let i = 0; i < 4000; i++) sum += rng.beta(2, 6);
    expect(Math.abs(sum / 4000 - 0.25)).toBeLessThan(0.01);
  });
});
