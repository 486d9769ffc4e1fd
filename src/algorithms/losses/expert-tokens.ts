// Expert (off-policy) tokens inside an RL group (issue 13, `off-policy-prefix`): a completion may start
// with tokens copied from an expert trace (a worked solution, whole or a prefix) that the policy then
// continues. Those tokens were not drawn from π_θ, so the configured RL loss (a ratio π_θ/π_old, clipped)
// does not apply to them; they take an expert term instead, and the policy's own tokens keep the
// configured loss, token by token, under ONE aggregation (the configured loss's: its mode and normaliser
// count expert and own tokens alike, as LUFFY's single `prefix_mask`-split loss does).
//
// Expert terms (registry `expertTerms`):
// - 'policy-shaping' (LUFFY default): ℓ = −A·f(π),  f(p) = p/(p+γ),  π = exp(logp), γ = 0.1,
//   ∂ℓ/∂logp = −A·γ·π/(π+γ)²; no importance ratio (π_expert taken as 1), no clip. Paper: "Learning to
//   Reason under Off-Policy Guidance" (Yan et al. 2025), arXiv 2504.14945; code ElliottYan/LUFFY
//   `mix_core_alg.py` (`off_policy_reshape = p_div_p_0.1`), per reference/curricula.md B3.
// - 'sft': ℓ = −logp, ∂ℓ/∂logp = −1 (advantage ignored): the SFT alternative the issue names.
// - 'trust-region-sft' (TRAPO's TrSFT): ℓ = −π/max(sg(π), α), α = 0.1, advantage ignored;
//   ∂ℓ/∂logp = −min(1, π/α): inside the trust region (π ≥ α) the SFT gradient of −logp, outside it
//   attenuated in proportion to π, so an improbable expert token cannot pull hard (the forward KL's
//   mode-covering push becomes the reverse KL's mode-seeking one). The value is the authors' reported loss
//   (−1 inside, −π/α outside; sg = stop-gradient). Paper: "Trust-Region Adaptive Policy Optimization"
//   (Su et al. 2025), arXiv 2512.17636; code Su-my/TRAPO `trapo_src/mix_core_alg.py`
//   (`off_policy_reshape="clip_low"`, `advantages_of_hint = 1` in `mix_actor.py`), read for the formula.
//   TRAPO's adaptive micro-groups (4, 2, 1, 1 samples with prefixes 0, ¼, ½, the whole solution,
//   each chosen from the group's running score) are not built: they need sampling rounds inside a step
//   that depend on the previous round's grades, which the guidance contract offers once (retry).
//
// `withExpertTokens(base, term)` builds the mixed loss from any loss made by definePolicyLoss. A sequence
// without offPolicy flags gives exactly the base loss's weights and metrics (nothing changes for runs
// without expert traces). Extra metrics (present only when a batch has expert tokens):
//   offpolicy/token_frac   expert tokens / loss tokens
//   offpolicy/prob_mean    mean π_θ(t) over expert tokens (the current forward's log-probs)
// Deviations from LUFFY: the on-policy term is the configured loss (LUFFY: unclipped −A·r,
// `loss_remove_clip=True`; configure 'importance-sampling' to get it); LUFFY's optional clamps
// (off_max_clip/off_min_clip) are left out; aggregation is the configured one (LUFFY: Σ(ℓ·mask)/max_len).
import { z } from 'zod';
import { Registry } from '../../core/registry.ts';
import { parseOptions } from '../options.ts';
import {
  computeTokenLoss,
  type LossSequence,
  type PolicyLoss,
  type PolicyLossResult,
  type TokenInput,
  type TokenTerm,
} from './policy-loss.ts';

export interface ExpertTerm<Options = any> {
  readonly name: string;
  readonly description: string;
  readonly optionsSchema: z.ZodType<Options>;
  term(token: TokenInput, options: Options): TokenTerm;
}

const shapingSchema = z.strictObject({
  /** γ in f(p) = p/(p+γ) (LUFFY: 0.1). */
  gamma: z.number().positive().default(0.1),
});

/** LUFFY's policy-shaping term on one expert token. */
export function shapedExpertToken(token: TokenInput, options: { gamma: number }): TokenTerm {
  const a = token.advantage;
  const p = Math.exp(token.logprob);
  const g = options.gamma;
  return { value: (-a * p) / (p + g), derivative: (-a * g * p) / (p + g) ** 2 };
}

const trustRegionSchema = z.strictObject({
  /** α: the trust region's lower probability bound (TRAPO: 0.1). */
  alpha: z.number().gt(0).max(1).default(0.1),
});

/** TRAPO's trust-region SFT term on one expert token (advantage ignored, as the authors' hint advantage 1). */
export function trustRegionSftToken(token: TokenInput, options: { alpha: number }): TokenTerm {
  const p = Math.exp(token.logprob);
  const scale = -p / Math.max(p, options.alpha);
  return { value: scale, derivative: scale };
}

export const expertTerms = new Registry<ExpertTerm>('expert token term', (registry) =>
  registry
    .register('policy-shaping', {
      name: 'policy-shaping',
      description: 'LUFFY: −A·p/(p+γ), no importance ratio, no clip',
      optionsSchema: shapingSchema,
      term: shapedExpertToken,
    })
    .register('sft', {
      name: 'sft',
      description: 'negative log-likelihood of the expert token (advantage ignored)',
      optionsSchema: z.strictObject({}),
      term: (token) => ({ value: -token.logprob, derivative: -1 }),
    })
    .register('trust-region-sft', {
      name: 'trust-region-sft',
      description: 'TRAPO TrSFT: −π/max(sg π, α): SFT inside the trust region π ≥ α, attenuated outside',
      optionsSchema: trustRegionSchema,
      term: trustRegionSftToken,
    }),
);

/** The config block naming an expert term: `{ name, options }`. */
export const expertTermConfigSchema = z
  .strictObject({
    name: z.string().default('policy-shaping'),
    options: z.unknown().optional(),
  })
  .default({ name: 'policy-shaping' });
export type ExpertTermConfig = z.output<typeof expertTermConfigSchema>;

/**
 * The base loss with `term` on every token marked offPolicy. Throws (at setup) when the base loss does
 * not expose its per-token term, or the term's options are invalid.
 */
export function withExpertTokens(base: PolicyLoss, config: ExpertTermConfig): PolicyLoss {
  const tokenLoss = base.tokenLoss;
  if (!tokenLoss) {
    throw new RangeError(
      `loss '${base.name}' has no per-token term, so expert tokens cannot be mixed into it`,
    );
  }
  const expert = expertTerms.get(config.name);
  const termOptions = parseOptions(expert.optionsSchema, config.options, `expert term '${expert.name}'`);
  const compute = (sequences: readonly LossSequence[], options?: unknown): PolicyLossResult => {
    const resolved = base.resolveOptions(options);
    const result = computeTokenLoss(
      sequences,
      resolved,
      (token, baseOptions) =>
        token.offPolicy ? expert.term(token, termOptions) : tokenLoss(token, baseOptions),
      base.requireOldLogprobs ?? false,
    );
    return { ...result, metrics: { ...result.metrics, ...expertMetrics(sequences) } };
  };
  return {
    name: base.name,
    description: `${base.description}; expert tokens: ${expert.description}`,
    paper: base.paper,
    optionsSchema: base.optionsSchema,
    resolveOptions: base.resolveOptions,
    tokenLoss: base.tokenLoss,
    requireOldLogprobs: base.requireOldLogprobs,
    expertTerm: expert.name,
    compute,
  };
}

/** offpolicy/token_frac and offpolicy/prob_mean; {} when no loss token is an expert token. */
function expertMetrics(sequences: readonly LossSequence[]): Record<string, number> {
  let tokens = 0;
  let expert = 0;
  let probSum = 0;
  for (const sequence of sequences) {
    sequence.mask.forEach((m, t) => {
      if (m === 0) return;
      tokens++;
      if (!sequence.offPolicy?.[t]) return;
      expert++;
      probSum += Math.exp(sequence.logprobs[t]);
    });
  }
  if (expert === 0) return {};
  return { 'offpolicy/token_frac': expert / tokens, 'offpolicy/prob_mean': probSum / expert };
}
