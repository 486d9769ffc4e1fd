// Our sequences ↔ Tinker datums (TinkerPolicyBackend, backend.ts). A sequence of L tokens is a datum with
// model_input = tokens[:-1] and target_tokens = tokens[1:] (plus per-position loss inputs); the returned
// per-datum `logprobs` are then our L−1 log-probs (tinker-wire-sdk-0.25.md §3).
import type { ForwardBackwardOutput, WireDatum } from '../wire/index.ts';
import { TinkerCallError } from './http.ts';

/** A Tinker datum of a whole sequence: model_input = tokens[:-1], target_tokens = tokens[1:]. */
export function sequenceDatum(
  tokens: readonly number[],
  inputs: Record<string, readonly number[]>,
): WireDatum {
  const lossFnInputs: WireDatum['lossFnInputs'] = {
    target_tokens: { data: tokens.slice(1), dtype: 'int64', shape: [tokens.length - 1] },
  };
  for (const [name, values] of Object.entries(inputs))
    lossFnInputs[name] = { data: [...values], dtype: 'float32', shape: [values.length] };
  return { modelInput: [{ type: 'encoded_text', tokens: tokens.slice(0, -1) }], lossFnInputs };
}

/** The per-sequence log-probs of a forward_backward output; throws TinkerCallError on a shape mismatch. */
export function logprobsOf(output: ForwardBackwardOutput, lengths: number[], call: string): number[][] {
  if (output.lossFnOutputs.length !== lengths.length) {
    throw new TinkerCallError(
      `Tinker ${call}: ${output.lossFnOutputs.length} outputs for ${lengths.length} sequences`,
    );
  }
  return output.lossFnOutputs.map((record, i) => {
    const logprobs = record.logprobs?.data;
    if (!logprobs || logprobs.length !== lengths[i] - 1) {
      throw new TinkerCallError(
        `Tinker ${call}: output ${i} has ${logprobs?.length ?? 'no'} logprobs for ${lengths[i]} tokens`,
      );
    }
    return logprobs;
  });
}
