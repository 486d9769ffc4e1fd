// forward_backward / forward of one Tinker request on an embedded policy.
// Tinker's Datum aligns `model_input` (N tokens) with per-position `loss_fn_inputs` (N values each):
// position i predicts target_tokens[i]. The embedded policy scores next tokens of one sequence, so the
// sequence is model_input + [target_tokens[N−1]], and target_tokens[i] must equal model_input[i+1] for
// i < N−1 (what every Tinker client sends; anything else is refused with a 400-style user error).
// How a loss runs (documented deviation: one extra forward pass for the RL losses):
// - cross_entropy: one forwardBackward(…, 'cross_entropy') with the weights;
// - importance_sampling / ppo / cispo: forward() for the current log-probs, per-token dℓ/dlogp from the
//   closed form (losses.ts), then forwardBackward(…, 'linear') with those derivatives as weights;
// - forward_only: forward() only, the loss is still computed and reported.
// Output per datum: `logprobs` and `elementwise_loss` (float32 [N]); metric `loss:sum`.
import type {
  ForwardBackwardOutput,
  ForwardBackwardRequest,
  TensorData,
  WireDatum,
} from '../../backends/tinker/wire/index.ts';
import { textTokens } from '../../backends/tinker/wire/index.ts';
import { UserError } from '../../core/errors.ts';
import type { Datum, PolicyBackend } from '../../core/policy.ts';
import { type TinkerLoss, type TokenInputs, tinkerLosses } from './losses.ts';

export const lossFnOutputType = 'TorchLossReturn';

interface PreparedDatum {
  sequence: number[];
  inputs: TokenInputs[];
}

export interface PreparedRequest {
  loss: TinkerLoss;
  config: Record<string, number>;
  datums: PreparedDatum[];
  forwardOnly: boolean;
}

function vector(datum: WireDatum, name: string, length: number, where: string): number[] {
  const tensor: TensorData | undefined = datum.lossFnInputs[name];
  if (tensor === undefined) throw new UserError(`${where}: loss_fn_inputs lacks '${name}'`);
  if (tensor.data.length !== length) {
    throw new UserError(
      `${where}: loss_fn_inputs.${name} has ${tensor.data.length} values for ${length} input tokens`,
    );
  }
  if (!tensor.data.every(Number.isFinite))
    throw new UserError(`${where}: loss_fn_inputs.${name} is not finite`);
  return tensor.data;
}

/** Validates a request against its loss and turns it into policy sequences; throws UserError. */
export function prepareRequest(request: ForwardBackwardRequest): PreparedRequest {
  if (request.lossFn === 'dro') {
    throw new UserError(
      `loss_fn 'dro' is not supported by this server; known: ${tinkerLosses.names().join(', ')}`,
    );
  }
  const loss = tinkerLosses.get(request.lossFn);
  const config = { ...loss.configDefaults };
  for (const [key, value] of Object.entries(request.lossFnConfig)) {
    if (!(key in loss.configDefaults)) {
      const known = Object.keys(loss.configDefaults);
      throw new UserError(
        `loss_fn_config key '${key}' is not used by ${request.lossFn}; known: ${known.length ? known.join(', ') : 'none'}`,
      );
    }
    config[key] = value;
  }
  if (request.data.length === 0) throw new UserError('forward_backward: no data');
  const datums = request.data.map((datum, index) => {
    const where = `data[${index}]`;
    const input = textTokens(datum.modelInput);
    const n = input.length;
    if (n === 0) throw new UserError(`${where}: empty model_input`);
    const targets = vector(datum, 'target_tokens', n, where);
    for (let i = 0; i + 1 < n; i++) {
      if (targets[i] !== input[i + 1]) {
        throw new UserError(
          `${where}: target_tokens[${i}] = ${targets[i]} but model_input[${i + 1}] = ${input[i + 1]}; this server trains next-token targets only (target_tokens = the input shifted by one)`,
        );
      }
    }
    const ones = () => new Array<number>(n).fill(1);
    const zeros = () => new Array<number>(n).fill(0);
    const weights = loss.inputs.includes('weights') ? vector(datum, 'weights', n, where) : ones();
    const sampling = loss.inputs.includes('logprobs') ? vector(datum, 'logprobs', n, where) : zeros();
    const advantages = loss.inputs.includes('advantages') ? vector(datum, 'advantages', n, where) : zeros();
    return {
      sequence: [...input, targets[n - 1]],
      inputs: weights.map((weight, t) => ({
        weight,
        samplingLogprob: sampling[t],
        advantage: advantages[t],
      })),
    };
  });
  return { loss, config, datums, forwardOnly: request.forwardOnly };
}

/** Runs a prepared request on the policy (gradients accumulate unless forward_only). */
export async function runForwardBackward(
  policy: PolicyBackend,
  request: PreparedRequest,
): Promise<ForwardBackwardOutput> {
  const { loss, config, datums } = request;
  const sequences = datums.map((datum) => datum.sequence);
  const terms = (logprobs: number[][]) =>
    datums.map((datum, i) => datum.inputs.map((inputs, t) => loss.term(logprobs[i][t], inputs, config)));
  let logprobs: number[][];
  if (request.forwardOnly) {
    logprobs = await policy.forward(sequences);
  } else if (!loss.needsLogprobs) {
    const data: Datum[] = datums.map((datum) => ({
      tokens: datum.sequence,
      weights: datum.inputs.map((inputs) => inputs.weight),
    }));
    logprobs = (await policy.forwardBackward(data, 'cross_entropy')).logprobs;
  } else {
    const current = await policy.forward(sequences);
    const derivatives = terms(current).map((row) => row.map((term) => term.derivative));
    const data: Datum[] = datums.map((datum, i) => ({ tokens: datum.sequence, weights: derivatives[i] }));
    await policy.forwardBackward(data, 'linear');
    logprobs = current;
  }
  const values = terms(logprobs).map((row) => row.map((term) => term.value));
  const total = values.reduce((sum, row) => row.reduce((rowSum, value) => rowSum + value, sum), 0);
  const float = (data: number[]): TensorData => ({ data, dtype: 'float32', shape: [data.length] });
  return {
    lossFnOutputType,
    lossFnOutputs: logprobs.map((row, i) => ({ logprobs: float(row), elementwise_loss: float(values[i]) })),
    metrics: { 'loss:sum': total },
  };
}
