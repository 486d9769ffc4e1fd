// The tokenizer of `curricula bench policy`: characters from '!' up to the benchmark's vocabulary, with
// EOS disabled, so that every sampled row runs to the context limit and the batch stays full (a trained
// model's early stops would only make the batch smaller). Worker replicas rebuild it from its JSON through
// `noEosTokenizerFactory` (a plain CharTokenizer.fromJSON would bring EOS back).
import { CharTokenizer } from '../policy/tokenizer.ts';
import type { TokenizerFactory } from '../policy/worker-link.ts';

/** A CharTokenizer that never emits EOS (eos = -1), otherwise the same (its JSON included). */
export function withoutEos(tokenizer: CharTokenizer): CharTokenizer {
  return Object.assign(Object.create(tokenizer), { eos: -1 }) as CharTokenizer;
}

/** The benchmark's tokenizer for a vocabulary of `vocabSize` ids (3 of them special). */
export function benchTokenizer(vocabSize: number): CharTokenizer {
  return withoutEos(
    new CharTokenizer(Array.from({ length: vocabSize - 3 }, (_, i) => String.fromCharCode(0x21 + i))),
  );
}

/** How a worker replica rebuilds the benchmark's tokenizer (parallel-backend.ts tokenizerFactory). */
export function noEosFromJSON(json: unknown): CharTokenizer {
  return withoutEos(CharTokenizer.fromJSON(json));
}

export const noEosTokenizerFactory: TokenizerFactory = {
  module: import.meta.url,
  exportName: 'noEosFromJSON',
};
