// Test support for environment tests: the character tokenizer of the shipped checkpoints, and a policy
// that writes a fixed text per sampling call — what a test needs to play an episode turn by turn.
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { perRow } from '../policy/test-helpers.ts';

/** Every printable ASCII character and newline, as the shipped checkpoints' tokenizers have. */
export function printableTokenizer(): CharTokenizer {
  return new CharTokenizer(['\n', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))]);
}

/**
 * A policy whose k-th sampling call (per row: perRow) answers `turns[k]` ('' past the end): stopped by a
 * stop string when the text ends with one, else EOS appended; log-probs −1.
 */
export function scriptedTurns(tokenizer: CharTokenizer, turns: readonly string[]): PolicyBackend {
  let call = 0;
  const policy = {
    tokenizer,
    contextLength: 256,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      const text = turns[call++] ?? '';
      const stop = (options.stop ?? []).find((s) => text.endsWith(s));
      const tokens = [...tokenizer.encode(text), ...(stop ? [] : [tokenizer.eos])];
      const logprobs = tokens.map(() => -1);
      return prompts.map(() => [
        { tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: stop ? 'stop' : 'eos' },
      ]);
    },
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return policy;
}
