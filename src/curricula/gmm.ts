// A small Gaussian mixture with full covariances, fitted by expectation–maximisation, for ALP-GMM.
// Mirrors what teachDeepRL gets from sklearn.mixture.GaussianMixture(covariance_type='full', n_init=1):
// means seeded by k-means++ (sklearn runs k-means first; ours is cheaper), a ridge of
// `regularization` on every covariance diagonal (sklearn's reg_covar = 1e-6), stop when the mean
// log-likelihood changes by less than `tolerance` (sklearn: 1e-3) or after `maxIterations` (sklearn: 100).
// Model selection by AIC = −2·logL + 2·(free parameters).
import type { Rng } from '../core/rng.ts';

export interface Gmm {
  weights: number[];
  /** [k][d] */
  means: number[][];
  /** [k][d][d] */
  covariances: number[][][];
}

export interface GmmFit extends Gmm {
  logLikelihood: number;
  aic: number;
}

export interface GmmFitOptions {
  maxIterations?: number;
  tolerance?: number;
  regularization?: number;
  /** Start EM from this mixture (same k and dimension) instead of k-means++ seeds (sklearn's warm_start). */
  initial?: Gmm;
}

/** Lower-triangular L with L·Lᵀ = matrix; throws when not positive definite. */
export function cholesky(matrix: readonly (readonly number[])[]): number[][] {
  const d = matrix.length;
  const lower = Array.from({ length: d }, () => new Array<number>(d).fill(0));
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = matrix[i][j];
      for (let k = 0; k < j; k++) sum -= lower[i][k] * lower[j][k];
      if (i === j) {
        if (!(sum > 0)) throw new RangeError('cholesky: matrix is not positive definite');
        lower[i][i] = Math.sqrt(sum);
      } else lower[i][j] = sum / lower[j][j];
    }
  }
  return lower;
}

/** log N(x; mean, L·Lᵀ) given the Cholesky factor L. */
export function gaussianLogDensity(
  x: readonly number[],
  mean: readonly number[],
  lower: readonly number[][],
): number {
  const d = x.length;
  // Solve L·z = x − mean by forward substitution; the Mahalanobis term is |z|².
  const z = new Array<number>(d);
  let logDeterminant = 0;
  let squared = 0;
  for (let i = 0; i < d; i++) {
    let value = x[i] - mean[i];
    for (let k = 0; k < i; k++) value -= lower[i][k] * z[k];
    z[i] = value / lower[i][i];
    squared += z[i] * z[i];
    logDeterminant += 2 * Math.log(lower[i][i]);
  }
  return -0.5 * (d * Math.log(2 * Math.PI) + logDeterminant + squared);
}

/** Fits a k-component mixture to `points` ([n][d], n ≥ k). Flat typed arrays keep the loops allocation-free. */
export function fitGmm(
  points: readonly (readonly number[])[],
  k: number,
  rng: Rng,
  options: GmmFitOptions = {},
): GmmFit {
  const { maxIterations = 100, tolerance = 1e-3, regularization = 1e-6 } = options;
  const n = points.length;
  const d = points[0].length;
  if (n < k) throw new RangeError(`fitGmm: ${n} points cannot fit ${k} components`);
  const x = flatten(points, d);
  const state = initialState(x, n, d, k, rng, regularization);
  if (options.initial !== undefined) warmStart(state, options.initial);
  const buffers: EStepBuffers = {
    responsibilities: new Float64Array(n * k),
    lowers: new Float64Array(k * d * d),
    logNormalisers: new Float64Array(k),
    z: new Float64Array(d),
    logs: new Float64Array(k),
  };
  let previous = Number.NEGATIVE_INFINITY;
  let logLikelihood = Number.NEGATIVE_INFINITY;
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    logLikelihood = expectationStep(state, x, n, regularization, buffers);
    if (Math.abs(logLikelihood - previous) / n < tolerance) break;
    previous = logLikelihood;
    maximisationStep(state, x, n, regularization, buffers.responsibilities);
  }
  return toFit(state, logLikelihood);
}

/** The mixture being fitted, in flat arrays. */
interface FlatGmm {
  k: number;
  d: number;
  /** [k] */
  weights: Float64Array;
  /** [k, d] */
  means: Float64Array;
  /** [k, d, d] */
  covariances: Float64Array;
}

/** Scratch of the E step, allocated once per fit. */
interface EStepBuffers {
  /** [n, k] */
  responsibilities: Float64Array;
  /** Cholesky factors, [k, d, d] */
  lowers: Float64Array;
  /** log w_c − ½(d·log 2π + log|Σ_c|), [k] */
  logNormalisers: Float64Array;
  /** [d] */
  z: Float64Array;
  /** [k] */
  logs: Float64Array;
}

/** The points as one [n, d] array. */
function flatten(points: readonly (readonly number[])[], d: number): Float64Array {
  const x = new Float64Array(points.length * d); // [n, d]
  points.forEach((point, i) => {
    for (let j = 0; j < d; j++) x[i * d + j] = point[j];
  });
  return x;
}

/**
 * Initial means by k-means++ seeding (first point uniform, each next ∝ squared distance to the nearest
 * chosen one); sklearn starts EM from a k-means solution, which this approximates at a fraction of the
 * cost. Every covariance starts as the diagonal of the data's variances plus the ridge, weights uniform.
 */
function initialState(
  x: Float64Array,
  n: number,
  d: number,
  k: number,
  rng: Rng,
  regularization: number,
): FlatGmm {
  const means = new Float64Array(k * d); // [k, d]
  const nearest = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  for (let c = 0; c < k; c++) {
    let pick = rng.int(0, n - 1);
    if (c > 0) {
      const weights = Array.from(nearest);
      if (weights.some((weight) => weight > 0)) pick = rng.categorical(weights);
    }
    for (let j = 0; j < d; j++) means[c * d + j] = x[pick * d + j];
    for (let i = 0; i < n; i++) {
      let distance = 0;
      for (let j = 0; j < d; j++) distance += (x[i * d + j] - means[c * d + j]) ** 2;
      nearest[i] = Math.min(nearest[i], distance);
    }
  }
  const covariances = new Float64Array(k * d * d); // [k, d, d]
  for (let j = 0; j < d; j++) {
    let average = 0;
    for (let i = 0; i < n; i++) average += x[i * d + j] / n;
    let variance = 0;
    for (let i = 0; i < n; i++) variance += (x[i * d + j] - average) ** 2 / n;
    for (let c = 0; c < k; c++) covariances[c * d * d + j * d + j] = variance + regularization;
  }
  const weights = new Float64Array(k).fill(1 / k);
  return { k, d, weights, means, covariances };
}

/** Replaces the seeds by `initial` when it has the same k and dimension (the seeding's draws still happen). */
function warmStart(state: FlatGmm, initial: Gmm): void {
  const { k, d, weights, means, covariances } = state;
  if (initial.weights.length !== k || initial.means[0]?.length !== d) return;
  for (let c = 0; c < k; c++) {
    weights[c] = initial.weights[c];
    for (let a = 0; a < d; a++) {
      means[c * d + a] = initial.means[c][a];
      for (let b = 0; b < d; b++) covariances[c * d * d + a * d + b] = initial.covariances[c][a][b];
    }
  }
}

/**
 * E step: Cholesky of each covariance, then log w_c + log N(x_i; μ_c, Σ_c) by forward substitution;
 * fills the responsibilities and returns the log-likelihood of the points.
 */
function expectationStep(
  state: FlatGmm,
  x: Float64Array,
  n: number,
  regularization: number,
  buffers: EStepBuffers,
): number {
  const { k, d, weights, means, covariances } = state;
  const { responsibilities, lowers, logNormalisers, z, logs } = buffers;
  for (let c = 0; c < k; c++) {
    const base = c * d * d;
    let logDeterminant = 0;
    for (let i = 0; i < d; i++) {
      for (let j = 0; j <= i; j++) {
        let sum = covariances[base + i * d + j];
        for (let m = 0; m < j; m++) sum -= lowers[base + i * d + m] * lowers[base + j * d + m];
        if (i === j) {
          const root = Math.sqrt(Math.max(sum, regularization));
          lowers[base + i * d + i] = root;
          logDeterminant += 2 * Math.log(root);
        } else lowers[base + i * d + j] = sum / lowers[base + j * d + j];
      }
    }
    logNormalisers[c] = Math.log(weights[c]) - 0.5 * (d * Math.log(2 * Math.PI) + logDeterminant);
  }
  let logLikelihood = 0;
  for (let i = 0; i < n; i++) {
    let maximum = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < k; c++) {
      const base = c * d * d;
      let squared = 0;
      for (let a = 0; a < d; a++) {
        let value = x[i * d + a] - means[c * d + a];
        for (let m = 0; m < a; m++) value -= lowers[base + a * d + m] * z[m];
        z[a] = value / lowers[base + a * d + a];
        squared += z[a] * z[a];
      }
      logs[c] = logNormalisers[c] - 0.5 * squared;
      if (logs[c] > maximum) maximum = logs[c];
    }
    let sum = 0;
    for (let c = 0; c < k; c++) {
      const scaled = Math.exp(logs[c] - maximum);
      responsibilities[i * k + c] = scaled;
      sum += scaled;
    }
    logLikelihood += maximum + Math.log(sum);
    for (let c = 0; c < k; c++) responsibilities[i * k + c] /= sum;
  }
  return logLikelihood;
}

/** M step: weights, means and (ridged) covariances from the responsibilities ([n, k]), in place. */
function maximisationStep(
  state: FlatGmm,
  x: Float64Array,
  n: number,
  regularization: number,
  responsibilities: Float64Array,
): void {
  const { k, d, weights, means, covariances } = state;
  for (let c = 0; c < k; c++) {
    let mass = 0;
    for (let i = 0; i < n; i++) mass += responsibilities[i * k + c];
    mass = Math.max(mass, 1e-12);
    weights[c] = mass / n;
    for (let a = 0; a < d; a++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += responsibilities[i * k + c] * x[i * d + a];
      means[c * d + a] = sum / mass;
    }
    const base = c * d * d;
    for (let a = 0; a < d; a++) {
      for (let b = 0; b <= a; b++) {
        let sum = 0;
        for (let i = 0; i < n; i++) {
          sum +=
            responsibilities[i * k + c] *
            (x[i * d + a] - means[c * d + a]) *
            (x[i * d + b] - means[c * d + b]);
        }
        covariances[base + a * d + b] = sum / mass + (a === b ? regularization : 0);
        covariances[base + b * d + a] = covariances[base + a * d + b];
      }
    }
  }
}

/** The fitted mixture as nested arrays, with its log-likelihood and AIC. */
function toFit(state: FlatGmm, logLikelihood: number): GmmFit {
  const { k, d, weights, means, covariances } = state;
  const parameters = k - 1 + k * d + (k * d * (d + 1)) / 2;
  return {
    weights: Array.from(weights),
    means: Array.from({ length: k }, (_, c) => Array.from(means.subarray(c * d, (c + 1) * d))),
    covariances: Array.from({ length: k }, (_, c) =>
      Array.from({ length: d }, (_, a) =>
        Array.from(covariances.subarray(c * d * d + a * d, c * d * d + (a + 1) * d)),
      ),
    ),
    logLikelihood,
    aic: -2 * logLikelihood + 2 * parameters,
  };
}

/** Fits k = kMin..kMax (capped at the number of points) and keeps the lowest AIC. */
export function fitBestGmm(
  points: readonly (readonly number[])[],
  kMin: number,
  kMax: number,
  rng: Rng,
  options: GmmFitOptions = {},
  /** Warm start: previous fits by k (read and replaced in place); omit for cold starts. */
  previous?: Map<number, Gmm>,
): GmmFit {
  let best: GmmFit | null = null;
  for (let k = kMin; k <= Math.min(kMax, points.length); k++) {
    const fit = fitGmm(points, k, rng, { ...options, initial: previous?.get(k) });
    previous?.set(k, { weights: fit.weights, means: fit.means, covariances: fit.covariances });
    if (best === null || fit.aic < best.aic) best = fit;
  }
  if (best === null)
    throw new RangeError(`fitBestGmm: too few points (${points.length}) for ${kMin} components`);
  return best;
}

/** One draw from component `component`: mean + L·z, z ~ N(0, I). */
export function sampleComponent(model: Gmm, component: number, rng: Rng): number[] {
  const lower = cholesky(model.covariances[component]);
  const mean = model.means[component];
  const z = mean.map(() => rng.normal());
  return mean.map((value, i) => {
    let sum = value;
    for (let k = 0; k <= i; k++) sum += lower[i][k] * z[k];
    return sum;
  });
}
