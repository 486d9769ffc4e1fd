// A small Gaussian mixture with full covariances, fitted by expectation–maximisation, for ALP-GMM.
// Mirrors what teachDeepRL gets from sklearn.mixture.GaussianMixture(covariance_type='full', n_init=1):
// means initialised at k distinct random points (sklearn uses k-means; ours is cheaper), a ridge of
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

function logSumExp(values: readonly number[]): number {
  const maximum = Math.max(...values);
  if (maximum === Number.NEGATIVE_INFINITY) return maximum;
  let sum = 0;
  for (const value of values) sum += Math.exp(value - maximum);
  return maximum + Math.log(sum);
}

/** Fits a k-component mixture to `points` ([n][d], n ≥ k). */
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
  // Initial means: k distinct points; initial covariances: the data's diagonal variance.
  const picks = rng.shuffle(points.map((_, index) => index)).slice(0, k);
  let means = picks.map((index) => [...points[index]]);
  const globalMean = new Array<number>(d).fill(0);
  for (const point of points) for (let j = 0; j < d; j++) globalMean[j] += point[j] / n;
  const globalVariance = globalMean.map(
    (m, j) => points.reduce((sum, point) => sum + (point[j] - m) ** 2, 0) / n,
  );
  let covariances = means.map(() =>
    globalVariance.map((variance, i) =>
      globalVariance.map((_, j) => (i === j ? variance + regularization : 0)),
    ),
  );
  let weights = new Array<number>(k).fill(1 / k);
  const responsibilities = Array.from({ length: n }, () => new Array<number>(k).fill(0));
  let previous = Number.NEGATIVE_INFINITY;
  let logLikelihood = Number.NEGATIVE_INFINITY;
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    // E step.
    const lowers = covariances.map(cholesky);
    logLikelihood = 0;
    const logs = new Array<number>(k);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < k; c++)
        logs[c] = Math.log(weights[c]) + gaussianLogDensity(points[i], means[c], lowers[c]);
      const total = logSumExp(logs);
      logLikelihood += total;
      for (let c = 0; c < k; c++) responsibilities[i][c] = Math.exp(logs[c] - total);
    }
    if (Math.abs(logLikelihood / n - previous / n) < tolerance) break;
    previous = logLikelihood;
    // M step.
    const mass = new Array<number>(k).fill(0);
    for (let i = 0; i < n; i++) for (let c = 0; c < k; c++) mass[c] += responsibilities[i][c];
    weights = mass.map((value) => Math.max(value, 1e-12) / n);
    means = mass.map((value, c) => {
      const mean = new Array<number>(d).fill(0);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < d; j++) mean[j] += responsibilities[i][c] * points[i][j];
      return mean.map((sum) => sum / Math.max(value, 1e-12));
    });
    covariances = mass.map((value, c) => {
      const covariance = Array.from({ length: d }, () => new Array<number>(d).fill(0));
      for (let i = 0; i < n; i++) {
        const r = responsibilities[i][c];
        for (let a = 0; a < d; a++) {
          const da = points[i][a] - means[c][a];
          for (let b = 0; b <= a; b++) covariance[a][b] += r * da * (points[i][b] - means[c][b]);
        }
      }
      for (let a = 0; a < d; a++) {
        for (let b = 0; b <= a; b++) {
          covariance[a][b] /= Math.max(value, 1e-12);
          covariance[b][a] = covariance[a][b];
        }
        covariance[a][a] += regularization;
      }
      return covariance;
    });
  }
  const parameters = k - 1 + k * d + (k * d * (d + 1)) / 2;
  return { weights, means, covariances, logLikelihood, aic: -2 * logLikelihood + 2 * parameters };
}

/** Fits k = kMin..kMax (capped at the number of points) and keeps the lowest AIC. */
export function fitBestGmm(
  points: readonly (readonly number[])[],
  kMin: number,
  kMax: number,
  rng: Rng,
  options: GmmFitOptions = {},
): GmmFit {
  let best: GmmFit | null = null;
  for (let k = kMin; k <= Math.min(kMax, points.length); k++) {
    const fit = fitGmm(points, k, rng, options);
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
