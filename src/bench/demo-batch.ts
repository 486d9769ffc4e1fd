// The synthetic training batch of the worker and core-contention measurements (bench train's ceiling,
// src/bench/scripts/parallel-speed.ts): about the demo's RL batch in size and shape.
import type { Datum } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';

/** 128 sequences of 20-70 tokens with small mixed-sign weights past a 12-token "prompt". */
export function demoBatch(seed = 1): Datum[] {
  const rng = new Rng(seed);
  return Array.from({ length: 128 }, () => {
    const length = 20 + Math.floor(rng.next() * 50);
    const tokens = [1, ...Array.from({ length: length - 1 }, () => 3 + Math.floor(rng.next() * 90))];
    return { tokens, weights: tokens.slice(1).map((_, t) => (t < 12 ? 0 : (rng.next() - 0.5) / 1000)) };
  });
}
