// How the worker-parallel backend (parallel-backend.ts) divides a batch: into `parts` contiguous chunks
// whose costs are as equal as contiguous cuts allow. Contiguous chunks keep the results in input order
// and make the split a pure function of the costs, so a given batch and worker count always split the
// same way (which is what makes runs with the same N bit-identical).

/** Half-open index ranges [start, end), one per part, covering 0..costs.length in order; some may be empty. */
export function splitByCost(costs: readonly number[], parts: number): [number, number][] {
  if (!Number.isInteger(parts) || parts < 1)
    throw new RangeError(`parts must be an integer ≥ 1, got ${parts}`);
  for (const cost of costs) {
    if (!(cost >= 0 && Number.isFinite(cost)))
      throw new RangeError(`costs must be finite and ≥ 0, got ${cost}`);
  }
  // prefix[i] = cost of items 0..i-1.
  const prefix = [0];
  for (const cost of costs) prefix.push(prefix[prefix.length - 1] + cost);
  const total = prefix[costs.length];
  const cuts = [0];
  for (let k = 1; k < parts; k++) {
    const target = (total * k) / parts;
    const previous = cuts[k - 1];
    // The first cut at or past the target, or the one before it when that is closer (ties: the later).
    let cut = previous;
    while (cut < costs.length && prefix[cut] < target) cut++;
    if (cut > previous && target - prefix[cut - 1] < prefix[cut] - target) cut--;
    cuts.push(cut);
  }
  cuts.push(costs.length);
  return cuts.slice(0, -1).map((start, k) => [start, cuts[k + 1]]);
}
