// Seeded pseudo-random numbers. All randomness in library code goes through an Rng so that runs are
// reproducible and resumable: the full generator state is four 32-bit words that `state()` returns and
// `Rng.fromState()` restores.
//
// Generator: xoshiro128** (Blackman & Vigna), seeded through splitmix32 so that nearby seeds give
// unrelated streams.

export type RngState = [number, number, number, number];

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Seeded random-number generator (xoshiro128**); all randomness in Curricula goes through one, so runs replay exactly. */
export class Rng {
  // The four state words as int32 in plain fields (small integers, no heap numbers); state() gives uint32.
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new TypeError(`Rng seed must be a finite number, got ${seed}`);
    const next = splitmix32(Math.floor(seed) ^ Math.floor(seed / 2 ** 32));
    this.s0 = next() | 0;
    this.s1 = next() | 0;
    this.s2 = next() | 0;
    this.s3 = next() | 0;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** A generator that continues from a state returned by `state()`. */
  static fromState(state: RngState): Rng {
    const rng = new Rng(0);
    [rng.s0, rng.s1, rng.s2, rng.s3] = state.map((word) => word | 0);
    return rng;
  }

  /** The full generator state (four 32-bit words), for checkpoints. */
  state(): RngState {
    return [this.s0 >>> 0, this.s1 >>> 0, this.s2 >>> 0, this.s3 >>> 0];
  }

  /** Next raw 32-bit unsigned integer. */
  nextUint32(): number {
    const s1 = this.s1;
    const x = Math.imul(s1, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = s1 << 9;
    const s2 = this.s2 ^ this.s0;
    const s3 = this.s3 ^ s1;
    this.s1 = s1 ^ s2;
    this.s0 = this.s0 ^ s3;
    this.s2 = s2 ^ t;
    this.s3 = (s3 << 11) | (s3 >>> 21);
    return result;
  }

  /** Uniform float in [0, 1) with 53 random bits. */
  next(): number {
    const high = this.nextUint32() >>> 5; // 27 bits
    const low = this.nextUint32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`Rng.int: max (${max}) < min (${min})`);
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Standard normal sample (Box–Muller). */
  normal(mean = 0, std = 1): number {
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    return mean + std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** One element chosen uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick: empty array');
    return items[Math.floor(this.next() * items.length)];
  }

  /** Index drawn with probability proportional to `weights` (non-negative, not all zero). */
  categorical(weights: readonly number[]): number {
    let total = 0;
    for (const weight of weights) total += weight;
    if (!(total > 0)) throw new RangeError('Rng.categorical: weights must have a positive sum');
    let u = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      u -= weights[i];
      if (u < 0) return i;
    }
    return weights.length - 1;
  }

  /** Fisher–Yates shuffle, in place; returns the array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  /**
   * Beta(alpha, beta) sample via two Gamma draws (Marsaglia–Tsang), with exact one-uniform shortcuts when
   * a shape is 1: Beta(1, 1) = U, Beta(a, 1) = U^(1/a), Beta(1, b) = 1 − U^(1/b) (inverse CDFs). The
   * shortcuts matter for BOTS, whose never-seen problems sit at Beta(1, 1): 100k draws per step.
   */
  beta(alpha: number, beta: number): number {
    if (alpha === 1 && beta === 1) return this.next();
    if (beta === 1 && alpha > 0) return this.next() ** (1 / alpha);
    if (alpha === 1 && beta > 0) return 1 - this.next() ** (1 / beta);
    const x = this.gamma(alpha);
    const y = this.gamma(beta);
    return x / (x + y);
  }

  /** Gamma(shape, 1) sample (Marsaglia–Tsang, with the shape < 1 boost). */
  gamma(shape: number): number {
    if (!(shape > 0)) throw new RangeError(`Rng.gamma: shape must be > 0, got ${shape}`);
    if (shape < 1) return this.gamma(shape + 1) * this.next() ** (1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.next();
      if (u < 1 - 0.0331 * x ** 4) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  /** An independent child generator (for giving a component its own stream). */
  fork(): Rng {
    return new Rng(this.nextUint32() * 4294967296 + this.nextUint32());
  }
}
