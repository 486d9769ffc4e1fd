// What every embedded backend (in process, and the worker-parallel one) checks of its inputs before any
// model call: a sequence it can score, and a datum with one finite weight (and entropy weight) per
// predicted token. Each failure is a UserError naming the call, the item and the problem.

import { UserError } from '../core/errors.ts';
import type { Datum } from '../core/policy.ts';
import type { ModelConfig } from './model-config.ts';

/** Throws UserError naming `where` unless `tokens` is a sequence the model can score (2..context tokens in vocabulary). */
export function checkSequence(
  tokens: readonly number[],
  config: Pick<ModelConfig, 'contextLength' | 'vocabSize'>,
  where: string,
): void {
  const { contextLength, vocabSize } = config;
  if (tokens.length < 2) throw new UserError(`${where}: needs at least 2 tokens, got ${tokens.length}`);
  if (tokens.length > contextLength) {
    throw new UserError(`${where}: ${tokens.length} tokens exceed the context length ${contextLength}`);
  }
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t];
    if (!Number.isInteger(token) || token < 0 || token >= vocabSize) {
      throw new UserError(`${where}: token ${t} is ${token}, outside the vocabulary [0, ${vocabSize})`);
    }
  }
}

/** checkSequence plus: tokens − 1 finite weights. */
export function checkDatum(
  datum: Datum,
  config: Pick<ModelConfig, 'contextLength' | 'vocabSize'>,
  where: string,
): void {
  checkSequence(datum.tokens, config, where);
  if (datum.weights.length !== datum.tokens.length - 1) {
    throw new UserError(
      `${where}: ${datum.weights.length} weights for ${datum.tokens.length} tokens (need tokens − 1)`,
    );
  }
  for (const weight of datum.weights) {
    if (!Number.isFinite(weight)) throw new UserError(`${where}: weight ${weight} is not finite`);
  }
  const entropy = datum.entropyWeights;
  if (entropy === undefined) return;
  if (!Array.isArray(entropy) || entropy.length !== datum.tokens.length - 1) {
    throw new UserError(
      `${where}: ${Array.isArray(entropy) ? entropy.length : 'no'} entropy weights for ${datum.tokens.length} tokens (need tokens − 1)`,
    );
  }
  for (const weight of entropy) {
    if (!Number.isFinite(weight)) throw new UserError(`${where}: entropy weight ${weight} is not finite`);
  }
}
