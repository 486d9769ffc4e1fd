// Indices of the k largest scores, highest first, ties broken by the lower index. O(n log k) with a
// binary min-heap of size k, so a 100k-problem pool costs one pass.

export function topK(scores: ArrayLike<number>, k: number): number[] {
  const size = Math.min(k, scores.length);
  if (size <= 0) return [];
  const heap: number[] = []; // indices; heap[0] is the weakest of the kept
  // weaker(a, b): a ranks below b (smaller score, or equal score and larger index).
  const weaker = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  const siftUp = (position: number) => {
    while (position > 0) {
      const parent = (position - 1) >> 1;
      if (!weaker(heap[position], heap[parent])) break;
      [heap[position], heap[parent]] = [heap[parent], heap[position]];
      position = parent;
    }
  };
  const siftDown = (position: number) => {
    for (;;) {
      const left = 2 * position + 1;
      const right = left + 1;
      let weakest = position;
      if (left < heap.length && weaker(heap[left], heap[weakest])) weakest = left;
      if (right < heap.length && weaker(heap[right], heap[weakest])) weakest = right;
      if (weakest === position) return;
      [heap[position], heap[weakest]] = [heap[weakest], heap[position]];
      position = weakest;
    }
  };
  for (let index = 0; index < scores.length; index++) {
    if (heap.length < size) {
      heap.push(index);
      siftUp(heap.length - 1);
    } else if (weaker(heap[0], index)) {
      heap[0] = index;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (weaker(a, b) ? 1 : weaker(b, a) ? -1 : 0));
}
