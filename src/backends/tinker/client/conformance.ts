// The Tinker loss conformance check (`curricula tinker-check`): for each built-in loss, does the server's
// forward_backward compute the loss value and the per-token gradient weights of the closed form? Servers
// disagree (remote-and-guidance-2026.md §0: one maps importance_sampling to a clipped loss, one lacks
// prompt log-probs), and the client's 'linear' mapping (linear-loss.ts) relies on cross_entropy being
// exactly linear in its weights, negative ones included.
//
// Closed forms (Tinker docs "Loss functions"; SUM over tokens; r = exp(logp − logp_sampler)), written out
// here independently of the server's implementation:
//   cross_entropy        ℓ = −w·logp                      dℓ/dlogp = −w
//   importance_sampling  ℓ = −r·A                         dℓ/dlogp = −r·A
//   ppo                  ℓ = −min(r·A, clip(r,lo,hi)·A)   dℓ/dlogp = −r·A where the unclipped term is the
//                        min, else 0                      (lo, hi = 0.8, 1.2)
//   cispo                ℓ = −sg(clip(r,lo,hi))·A·logp    dℓ/dlogp = −clip(r,lo,hi)·A (lo, hi = 0, 4)
// How it is measured with standard endpoints only, on a tiny datum:
//   value:    the server's `loss:sum` (else Σ elementwise_loss) vs Σ ℓ from the log-probs it returned;
//   gradient: the gradient of the loss plus that of cross_entropy with weights = dℓ/dlogp (closed form)
//             is zero exactly when the server's per-token weights are the closed form's. Both
//             forward_backward calls accumulate, then optim_step with learning_rate 0 (no weight change)
//             reports the gradient norm of the sum, compared with the loss's own gradient norm.
//             Needs a `grad_norm:*` optim_step metric (Curricula's server sends one); without it the
//             gradient is reported as not checked.
import { TinkerPolicyBackend } from './backend.ts';

export interface LossConformance {
  loss: string;
  accepted: boolean;
  /** Why the server refused the loss (accepted = false). */
  error?: string;
  /** |server loss − closed form| / max(1, |closed form|). */
  valueError?: number;
  /** ‖∇(loss + cross_entropy(dℓ/dlogp))‖ / ‖∇loss‖; undefined when the server reports no grad norm. */
  gradientResidual?: number;
  pass: boolean;
}

interface Term {
  value: number;
  derivative: number;
}

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Closed forms: (logp, inputs at t) → value and dℓ/dlogp. */
const closedForms: Record<string, (logp: number, w: number, q: number, a: number) => Term> = {
  cross_entropy: (logp, w) => ({ value: -w * logp, derivative: -w }),
  importance_sampling: (logp, _w, q, a) => {
    const r = Math.exp(logp - q);
    return { value: -r * a, derivative: -r * a };
  },
  ppo: (logp, _w, q, a) => {
    const r = Math.exp(logp - q);
    const unclipped = r * a;
    const clipped = clip(r, 0.8, 1.2) * a;
    return unclipped <= clipped
      ? { value: -unclipped, derivative: -unclipped }
      : { value: -clipped, derivative: 0 };
  },
  cispo: (logp, _w, q, a) => {
    const c = clip(Math.exp(logp - q), 0, 4);
    return { value: -c * a * logp, derivative: -c * a };
  },
};

export const conformanceLosses = Object.keys(closedForms);

/** The probe datum: 8 tokens, sampler log-prob offsets that put r inside and outside the clip ranges. */
const tokens = [1, 40, 41, 42, 43, 44, 45, 46];
const weights = [1, 0.5, 0, 2, 1, 0.25, 1.5];
const offsets = [0, 0.4, -0.4, 0.1, -1.2, 0.15, 2];
const advantages = [1, -1, 0.5, 2, -0.7, 1.3, -2];

/**
 * Runs the check on `backend`'s model (a throwaway one: it accumulates gradients and takes optimizer
 * steps with learning rate 0, which advance Adam's step counter).
 */
export async function checkLossConformance(
  backend: TinkerPolicyBackend,
  losses: readonly string[] = conformanceLosses,
  tolerance = 1e-3,
): Promise<LossConformance[]> {
  const [current] = await backend.forward([tokens]);
  const sampling = current.map((logp, t) => logp + offsets[t]);
  const inputsOf = (loss: string): Record<string, number[]> =>
    loss === 'cross_entropy' ? { weights } : { logprobs: sampling, advantages };
  const results: LossConformance[] = [];
  for (const loss of losses) {
    const datum = TinkerPolicyBackend.datum(tokens, inputsOf(loss));
    let output: Awaited<ReturnType<TinkerPolicyBackend['forwardBackwardCall']>>;
    try {
      output = await backend.forwardBackwardCall(`forward_backward (${loss})`, [datum], loss, false);
    } catch (error) {
      results.push({ loss, accepted: false, error: (error as Error).message, pass: false });
      continue;
    }
    const form = closedForms[loss];
    if (!form) {
      results.push({
        loss,
        accepted: true,
        error: `accepted, but no closed form is known here`,
        pass: false,
      });
      continue;
    }
    const logprobs = output.lossFnOutputs[0]?.logprobs?.data ?? current;
    const terms = logprobs.map((logp, t) => form(logp, weights[t], sampling[t], advantages[t]));
    const expected = terms.reduce((sum, term) => sum + term.value, 0);
    const elementwise = output.lossFnOutputs[0]?.elementwise_loss?.data;
    const reported =
      output.metrics['loss:sum'] ??
      (elementwise ? elementwise.reduce((sum, value) => sum + value, 0) : undefined);
    const valueError =
      reported === undefined ? undefined : Math.abs(reported - expected) / Math.max(1, Math.abs(expected));
    const alone = (await backend.optimStep({ learningRate: 0 })).gradNorm;
    await backend.forwardBackwardCall(`forward_backward (${loss})`, [datum], loss, false);
    // cross_entropy's gradient is −Σ weights·∇logp, so weights = dℓ/dlogp cancel the loss's gradient.
    const cancel = TinkerPolicyBackend.datum(tokens, { weights: terms.map((term) => term.derivative) });
    await backend.forwardBackwardCall('forward_backward (cross_entropy)', [cancel], 'cross_entropy', false);
    const residual = (await backend.optimStep({ learningRate: 0 })).gradNorm;
    const gradientResidual = Number.isFinite(alone) && alone > 0 ? residual / alone : undefined;
    results.push({
      loss,
      accepted: true,
      valueError,
      gradientResidual,
      pass:
        valueError !== undefined &&
        valueError < tolerance &&
        (gradientResidual === undefined || gradientResidual < tolerance),
    });
  }
  return results;
}
