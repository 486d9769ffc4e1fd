// Answer normalisation (work in progress).
export interface Normalized {
  latex: string;
  percent: boolean;
}
export function normalizeAnswer(text: string): Normalized {
  return { latex: text.trim(), percent: false };
}
