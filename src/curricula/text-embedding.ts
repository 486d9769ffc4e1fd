// A cheap text embedding for relevance scores: counts of hashed character n-grams (FNV-1a, 32-bit) in a
// fixed number of buckets, compared by cosine similarity. No model, no dependency; it captures surface
// overlap (shared words, numbers, templates), not meaning.

/** Sparse hashed n-gram counts of `text` (lower-cased, whitespace collapsed): bucket → count. */
export function hashedNgrams(text: string, n = 3, dimensions = 4096): Map<number, number> {
  const normalized = ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  const counts = new Map<number, number>();
  for (let start = 0; start + n <= normalized.length; start++) {
    let hash = 0x811c9dc5;
    for (let i = start; i < start + n; i++) {
      hash ^= normalized.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    const bucket = hash % dimensions;
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  }
  return counts;
}

/** Dense, L2-normalised embedding (all zeros for text shorter than n). */
export function embedText(text: string, n = 3, dimensions = 4096): Float64Array {
  const vector = new Float64Array(dimensions);
  for (const [bucket, count] of hashedNgrams(text, n, dimensions)) vector[bucket] = count;
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimensions; i++) vector[i] /= norm;
  return vector;
}

/** Cosine similarity between sparse counts and an L2-normalised dense vector. */
export function cosineToDense(sparse: Map<number, number>, dense: Float64Array): number {
  let dot = 0;
  let norm = 0;
  for (const [bucket, count] of sparse) {
    dot += count * dense[bucket];
    norm += count * count;
  }
  return norm > 0 ? dot / Math.sqrt(norm) : 0;
}
