// How our 'linear' loss (src/core/policy.ts: minimise L = Σ w_t·logp_t, w = dL/dlogp held constant) maps
// onto a Tinker built-in loss — the custom-loss pattern (tinker-docs "Custom loss functions": the SDK's
// forward_backward_custom turns a loss on log-probs into per-token weights the same way).
//
// - 'cross_entropy' (default): weights = −w. Tinker's cross_entropy is ℓ = −Σ weights·logp, LINEAR in the
//   weights, so dℓ/dlogp = −weights = w exactly, for either sign of w; one round trip. This is what the
//   official SDK's forward_backward_custom does ("Backend CE is L = sum(-logprobs * weights)", weights =
//   −dC/dlogp; remote-and-guidance-2026.md §1.3). It relies on the server not clamping or normalising
//   weights — what the conformance check (conformance.ts) verifies for a given server (its cancellation
//   step sends cross_entropy weights of both signs).
// - 'importance_sampling': advantages = −w and sampling log-probs = the current log-probs from a forward
//   pass first. ℓ = −Σ r·A with r = exp(logp − logp_old) gives dℓ/dlogp = −r·A = w at r = 1. Exact only
//   up to the float32 round trip of logp_old (|r − 1| ≈ 1e-7), costs one extra forward round trip, and
//   breaks on servers that clip r (one server maps importance_sampling to a clipped loss). For servers
//   that refuse negative cross_entropy weights.
// Our 'cross_entropy' (non-negative weights) maps to Tinker cross_entropy with the weights as given.
// The loss value we report is computed here from the returned log-probs (Σ w·logp), whatever the mapping.
import { Registry } from '../../../core/registry.ts';

export interface LinearLossMapping {
  /** true: needs the current log-probs (a forward pass) before the forward_backward. */
  readonly needsLogprobs: boolean;
  readonly lossFn: string;
  /** Tinker loss_fn_inputs (besides target_tokens) for one datum's weights w = dL/dlogp. */
  inputs(weights: readonly number[], logprobs: readonly number[] | undefined): Record<string, number[]>;
}

export const linearLossMappings = new Registry<LinearLossMapping>('linear loss mapping', (registry) =>
  registry
    .register('cross_entropy', {
      needsLogprobs: false,
      lossFn: 'cross_entropy',
      inputs: (weights) => ({ weights: weights.map((w) => (w === 0 ? 0 : -w)) }),
    })
    .register('importance_sampling', {
      needsLogprobs: true,
      lossFn: 'importance_sampling',
      inputs: (weights, logprobs) => ({
        advantages: weights.map((w) => (w === 0 ? 0 : -w)),
        logprobs: [...(logprobs ?? [])],
      }),
    }),
);
