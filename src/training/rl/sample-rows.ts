// Sampling the rows of an RL step, each with its own token limit: row i is a context that wants `counts[i]`
// completions of at most `limits[i]` tokens. A policy's sample() takes one maxTokens per call, so rows
// are grouped by limit and each group is one call:
// - one limit for every row (the usual case: rollout.maxTokens binds for all) → one call with `seed`,
//   exactly the call the step always made;
// - several limits (a long hinted prompt beside short ones) → one call per limit, longest limit first; the
//   first gets `seed`, the k-th `seed` mixed with k (distinct, reproducible streams).
// Within a call, equal counts sample n = count per context; unequal counts (the adaptive rollout budget)
// repeat each context once per completion with n = 1, as the step did before limits were per row.
// Before this, a step sampled every row with the limit of its longest context, so one long hinted prompt
// shortened every completion of the step (found with the `hints` scaffold on the ladder).
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';

export type RowSampleOptions = Omit<SampleOptions, 'n' | 'maxTokens'>;

/** Seed of the k-th call (k = 0: `seed` itself). */
export function callSeed(seed: number, k: number): number {
  return k === 0 ? seed : (Math.imul(seed ^ (k * 0x9e3779b9), 0x85ebca6b) ^ k) >>> 0;
}

/** Samples `counts[i]` completions of at most `limits[i]` tokens for each context i, in row order. */
export async function sampleRows(
  policy: PolicyBackend,
  contexts: readonly number[][],
  counts: readonly number[],
  limits: readonly number[],
  options: RowSampleOptions,
): Promise<SampledSequence[][]> {
  const byLimit = new Map<number, number[]>();
  for (const [row, limit] of limits.entries()) {
    if (!byLimit.has(limit)) byLimit.set(limit, []);
    byLimit.get(limit)!.push(row);
  }
  const result: SampledSequence[][] = contexts.map(() => []);
  const ordered = [...byLimit.entries()].sort(([a], [b]) => b - a);
  for (const [k, [limit, rows]] of ordered.entries()) {
    const callOptions = { ...options, maxTokens: limit, seed: callSeed(options.seed, k) };
    const rowCounts = rows.map((row) => counts[row]);
    if (rowCounts.every((count) => count === rowCounts[0])) {
      if (rowCounts[0] === 0) continue;
      const sampled = await policy.sample(
        rows.map((row) => contexts[row]),
        { ...callOptions, n: rowCounts[0] },
      );
      rows.forEach((row, index) => {
        result[row] = sampled[index];
      });
      continue;
    }
    const repeated = rows.flatMap((row) => Array.from({ length: counts[row] }, () => contexts[row]));
    const flat = (await policy.sample(repeated, { ...callOptions, n: 1 })).map(([sequence]) => sequence);
    let offset = 0;
    for (const row of rows) {
      result[row] = flat.slice(offset, offset + counts[row]);
      offset += counts[row];
    }
  }
  return result;
}
