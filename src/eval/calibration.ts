// Calibration metrics over (confidence, correct) pairs: the Brier score and the expected calibration error
// (ECE), as reported for RLCR ("Beyond Binary Rewards: Training LMs to Reason About Their Uncertainty",
// Damani et al., arXiv 2507.16806).
//
// - Brier = mean over pairs of (q − c)², q ∈ [0, 1] the stated confidence, c ∈ {0, 1} correctness. Lower is
//   better; 0.25 is what a constant q = 0.5 scores.
// - ECE with B equal-width bins (default 10): bin b holds the confidences in [b/B, (b+1)/B), except the last
//   bin, which is closed ([(B−1)/B, 1]) so that q = 1 lands in it. ECE = Σ_b (n_b / N) · |mean q_b − mean c_b|
//   over non-empty bins. This is the binning of the RLCR evaluation code as seen in a fork (np.digitize over
//   linspace(0, 1, 11) with outer edges ±inf); the authors' own evaluation script was not read: unverified.
//   Here the bin is floor(q·B); numpy's linspace edges are 0.30000000000000004, 0.6000000000000001 and
//   0.7000000000000001, so q = 0.3, 0.6, 0.7 fall one bin lower there (a float artefact, not a choice).
// Confidences outside [0, 1] or NaN are refused (RangeError): they are parse failures the caller must
// handle (RLCR gives such completions format 0; they carry no confidence to evaluate).

export interface CalibrationPair {
  /** Stated confidence in [0, 1]. */
  confidence: number;
  /** Whether the answer was correct (or 1/0). */
  correct: boolean | number;
}

export interface CalibrationBin {
  /** Inclusive lower edge. */
  lower: number;
  /** Upper edge (exclusive, except 1 for the last bin). */
  upper: number;
  count: number;
  /** Mean confidence in the bin (NaN when empty). */
  meanConfidence: number;
  /** Share correct in the bin (NaN when empty). */
  accuracy: number;
}

export interface CalibrationSummary {
  count: number;
  /** Mean (q − c)²; NaN when there are no pairs. */
  brier: number;
  /** Expected calibration error; NaN when there are no pairs. */
  ece: number;
  /** AUROC of the confidence for correctness (confidenceAuroc); NaN when all pairs agree. */
  auroc: number;
  /** Mean confidence and accuracy over all pairs. */
  meanConfidence: number;
  accuracy: number;
  bins: CalibrationBin[];
}

function check(pairs: readonly CalibrationPair[]): void {
  for (const [index, { confidence }] of pairs.entries()) {
    if (!(confidence >= 0 && confidence <= 1)) {
      throw new RangeError(`calibration: confidence ${confidence} at index ${index} is outside [0, 1]`);
    }
  }
}

const asNumber = (correct: boolean | number) => (correct === true ? 1 : correct === false ? 0 : correct);

/** Mean squared difference between confidence and correctness. NaN for no pairs. */
export function brierScore(pairs: readonly CalibrationPair[]): number {
  check(pairs);
  if (pairs.length === 0) return Number.NaN;
  let total = 0;
  for (const { confidence, correct } of pairs) total += (confidence - asNumber(correct)) ** 2;
  return total / pairs.length;
}

/** Index of the equal-width bin of a confidence in [0, 1]; 1 goes to the last bin. */
export function binIndex(confidence: number, bins: number): number {
  return Math.min(bins - 1, Math.floor(confidence * bins));
}

/** Reliability diagram data: one entry per equal-width bin (empty bins included). */
export function reliabilityBins(pairs: readonly CalibrationPair[], bins = 10): CalibrationBin[] {
  if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`calibration: bins must be ≥ 1, got ${bins}`);
  check(pairs);
  const sums = Array.from({ length: bins }, () => ({ count: 0, confidence: 0, correct: 0 }));
  for (const { confidence, correct } of pairs) {
    const sum = sums[binIndex(confidence, bins)];
    sum.count += 1;
    sum.confidence += confidence;
    sum.correct += asNumber(correct);
  }
  return sums.map((sum, b) => ({
    lower: b / bins,
    upper: (b + 1) / bins,
    count: sum.count,
    meanConfidence: sum.count > 0 ? sum.confidence / sum.count : Number.NaN,
    accuracy: sum.count > 0 ? sum.correct / sum.count : Number.NaN,
  }));
}

/** Expected calibration error with `bins` equal-width bins (default 10). NaN for no pairs. */
export function expectedCalibrationError(pairs: readonly CalibrationPair[], bins = 10): number {
  if (pairs.length === 0) return Number.NaN;
  let ece = 0;
  for (const bin of reliabilityBins(pairs, bins)) {
    if (bin.count > 0) ece += (bin.count / pairs.length) * Math.abs(bin.meanConfidence - bin.accuracy);
  }
  return ece;
}

/**
 * AUROC of the confidence as a score for correctness: the probability that a random correct completion
 * states a higher confidence than a random wrong one, ties counting ½ (the Mann–Whitney U / (n₁·n₀), with
 * midranks). It measures discrimination, which Brier and ECE mix with calibration: a constant confidence
 * equal to the accuracy has ECE 0 and AUROC ½. NaN when all pairs are correct or all wrong.
 */
export function confidenceAuroc(pairs: readonly CalibrationPair[]): number {
  check(pairs);
  const sorted = pairs
    .map(({ confidence, correct }) => ({ confidence, correct: asNumber(correct) >= 0.5 }))
    .sort((a, b) => a.confidence - b.confidence);
  let rankSum = 0;
  let positives = 0;
  for (let start = 0; start < sorted.length; ) {
    let end = start;
    while (end < sorted.length && sorted[end].confidence === sorted[start].confidence) end++;
    const midrank = (start + 1 + end) / 2;
    for (let i = start; i < end; i++) {
      if (sorted[i].correct) {
        rankSum += midrank;
        positives++;
      }
    }
    start = end;
  }
  const negatives = sorted.length - positives;
  if (positives === 0 || negatives === 0) return Number.NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** Brier, ECE and the reliability bins in one pass (what `curricula eval` reports). */
export function calibrationSummary(pairs: readonly CalibrationPair[], bins = 10): CalibrationSummary {
  const reliability = reliabilityBins(pairs, bins);
  const count = pairs.length;
  let confidence = 0;
  let correct = 0;
  for (const pair of pairs) {
    confidence += pair.confidence;
    correct += asNumber(pair.correct);
  }
  return {
    count,
    brier: brierScore(pairs),
    ece: expectedCalibrationError(pairs, bins),
    auroc: confidenceAuroc(pairs),
    meanConfidence: count > 0 ? confidence / count : Number.NaN,
    accuracy: count > 0 ? correct / count : Number.NaN,
    bins: reliability,
  };
}
