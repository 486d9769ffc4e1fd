// The scalar head of an embedded reward model (issue 31 item 3): r(x) = log p(Y | x′) − log p(N | x′),
// where x′ = [BOS] + prompt + completion + `\nRM:` and Y, N are the characters 'Y' and 'N'. The softmax
// normaliser cancels, so r = (u_Y − u_N) · h(x′): a linear function of the transformer's last hidden state
// whose weight vector is the difference of two unembedding rows — a scalar head tied to the language
// model's output layer (initialised from it), where TRL's and OpenRLHF's reward models put a separate
// linear layer on the last token. Both are trained with the same Bradley–Terry loss; the tied head needs
// no new weights in the checkpoint format, and any embedded checkpoint can be fine-tuned into one.
// Its gradients come from the policy contract's `linear` loss: d r / dθ is the gradient of log p(Y) on
// [x′, Y] minus that of log p(N) on [x′, N] (two Datums with the last weight ±w, weights 0 elsewhere).
import type { Datum, PolicyBackend, Tokenizer } from '../../core/policy.ts';

export const RM_SUFFIX = '\nRM:';

/** x′ as token ids, or null when x′ plus the verdict token does not fit the context. */
export function headInput(
  tokenizer: Tokenizer,
  contextLength: number,
  prompt: string,
  completion: string,
): number[] | null {
  const tokens = [tokenizer.bos, ...tokenizer.encode(prompt + completion + RM_SUFFIX)];
  return tokens.length + 1 <= contextLength ? tokens : null;
}

function verdictTokens(tokenizer: Tokenizer): [number, number] {
  const [yes] = tokenizer.encode('Y');
  const [no] = tokenizer.encode('N');
  return [yes, no];
}

/** r(x′) of each input: log p(Y | x′) − log p(N | x′), one forward pass over 2 sequences per input. */
export async function headScores(policy: PolicyBackend, inputs: readonly number[][]): Promise<number[]> {
  if (inputs.length === 0) return [];
  const [yes, no] = verdictTokens(policy.tokenizer);
  const logprobs = await policy.forward(
    inputs.flatMap((tokens) => [
      [...tokens, yes],
      [...tokens, no],
    ]),
  );
  return inputs.map((_, i) => {
    const y = logprobs[2 * i];
    const n = logprobs[2 * i + 1];
    return y[y.length - 1] - n[n.length - 1];
  });
}

/** The two Datums whose `linear` loss has gradient `weight · d r(x′) / dθ`. */
export function headData(tokenizer: Tokenizer, input: readonly number[], weight: number): Datum[] {
  const [yes, no] = verdictTokens(tokenizer);
  const weights = (last: number) => [...new Array(input.length - 1).fill(0), last];
  return [
    { tokens: [...input, yes], weights: weights(weight) },
    { tokens: [...input, no], weights: weights(-weight) },
  ];
}
