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

  it('keeps the xoshiro128** stream (golden values: runs and checkpoints depend on it)', () => {
    const rng = new Rng(42);
    expect(Array.from({ length: 6 }, () => rng.nextUint32())).toEqual([
      2837322924, 544945897, 479756282, 3500138142, 339756180, 113173290,
    ]);
    let checksum = 0;
    for (let i = 0; i < 100000; i++) checksum = (checksum + rng.nextUint32()) % 1000000007;
    expect(checksum).toBe(713624133);
    expect(rng.state()).toEqual([610968572, 2750691415, 2682805798, 3763102796]);
    const copy = Rng.fromState(rng.state());
    expect(copy.nextUint32()).toBe(rng.nextUint32());
  });

  it('samples the shape-1 Beta shortcuts from the right distribution', () => {
    // CDFs: Beta(1,1): x; Beta(a,1): x^a; Beta(1,b): 1 − (1−x)^b. Check the fraction below 0.3 and the mean.
    const cases: Array<[number, number, (x: number) => number, number]> = [
      [1, 1, (x) => x, 0.5],
      [3, 1, (x) => x ** 3, 0.75],
      [1, 4, (x) => 1 - (1 - x) ** 4, 0.2],
      [0.5, 1, (x) => Math.sqrt(x), 1 / 3],
    ];
    for (const [a, b, cdf, mean] of cases) {
      const rng = new Rng(11);
      let below = 0;
      let sum = 0;
      const n = 20000;
      for (let i = 0; i < n; i++) {
        const x = rng.beta(a, b);
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
        if (x < 0.3) below++;
        sum += x;
      }
      expect(Math.abs(below / n - cdf(0.3))).toBeLessThan(0.012);
      expect(Math.abs(sum / n - mean)).toBeLessThan(0.01);
    }
  });
});
