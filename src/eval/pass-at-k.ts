// Unbiased pass@k: the probability that at least one of k samples, drawn without replacement from n
// samples of which c are correct, is correct:
//   pass@k = 1 − C(n−c, k) / C(n, k) = 1 − Π_{i=n−c+1}^{n} (1 − k/i)     (1 when n − c < k)
// Paper: "Evaluating Large Language Models Trained on Code" (Chen et al. 2021), arXiv 2107.03374, the
// numerically stable product form of its `estimate_pass_at_k` (reference/curricula.md C5). The naive
// "any correct among the first k" is a biased, higher-variance estimate; best-of-N bootstraps (verl) are
// biased low. Averaged over problems, as in the paper.
import { ConfigError } from '../core/errors.ts';

/** Unbiased pass@k for one problem with n samples, c of them correct. Throws ConfigError when k > n. */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`pass@k: n must be a positive integer, got ${n}`);
  if (!Number.isInteger(c) || c < 0 || c > n)
    throw new RangeError(`pass@k: c must be an integer in [0, ${n}], got ${c}`);
  if (!Number.isInteger(k) || k < 1) throw new ConfigError(`pass@k: k must be a positive integer, got ${k}`);
  if (k > n) {
    throw new ConfigError(
      `pass@${k} needs at least ${k} samples per problem, got n = ${n}: raise n or lower k`,
    );
  }
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}

/** pass@k from one problem's per-sample correctness flags. */
export function passAtKFromCorrect(correct: readonly boolean[], k: number): number {
  return passAtK(correct.length, correct.filter(Boolean).length, k);
}

/** 1, 2, 4, … up to n (the k values reported by default). */
export function powersOfTwoUpTo(n: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  return ks;
}

/** pass@k for every power-of-two k ≤ n: { 1: …, 2: …, 4: … }. */
export function passAtKCurve(n: number, c: number): Record<number, number> {
  const curve: Record<number, number> = {};
  for (const k of powersOfTwoUpTo(n)) curve[k] = passAtK(n, c, k);
  return curve;
}

/** Mean pass@k over problems (each with its own n ≥ k). NaN for no problems. */
export function meanPassAtK(problems: readonly { n: number; c: number }[], k: number): number {
  if (problems.length === 0) return Number.NaN;
  let sum = 0;
  for (const { n, c } of problems) sum += passAtK(n, c, k);
  return sum / problems.length;
}
