// The mixed loss of expert-tokens.ts: expert tokens take LUFFY's −A·p/(p+γ) (closed form, value and
// weight per token), the policy's own tokens the configured loss's term, under one aggregation; the
// weights are the numerical gradient of the loss; without offPolicy flags it is the base loss exactly.
import { describe, expect, it } from 'vitest';
import { ConfigError, UnknownNameError } from '../../core/errors.ts';
import { type LossSequence, policyLosses, withExpertTokens } from './index.ts';
import type { PolicyLoss } from './policy-loss.ts';

const ppo = policyLosses.get('ppo-clip');
const mixed = withExpertTokens(ppo, { name: 'policy-shaping' });

// Tokens: expert π = 0.1, expert π = 0.5, own r = 1, own r = 1.5 (above 1 + 0.28: clipped), A = 2.
const sequence = (offPolicy?: boolean[]): LossSequence => ({
  logprobs: [Math.log(0.1), Math.log(0.5), Math.log(0.3), Math.log(0.3)],
  oldLogprobs: [Math.log(0.1), Math.log(0.5), Math.log(0.3), Math.log(0.2)],
  advantages: 2,
  mask: [1, 1, 1, 1],
  ...(offPolicy && { offPolicy }),
});
const flags = [true, true, false, false];

describe('withExpertTokens (policy-shaping on expert tokens, ppo-clip on own tokens)', () => {
  it('closed form, token-mean over 4 tokens: weights −0.5/4, −(0.1·0.5/0.36)·2/4, −2/4, 0', () => {
    const result = mixed.compute([sequence(flags)], {});
    // ∂ℓ/∂logp = −A·γ·π/(π+γ)²: π = 0.1 → −2·0.01/0.04 = −0.5; π = 0.5 → −2·0.05/0.36.
    const expected = [-0.5, (-2 * 0.05) / 0.36, -2, 0].map((w) => w / 4);
    result.weights[0].forEach((w, t) => {
      expect(w).toBeCloseTo(expected[t], 12);
    });
    // ℓ = −A·π/(π+γ): −1, −2·0.5/0.6; own: −A·r = −2, clipped −A·1.28.
    expect(result.loss).toBeCloseTo((-1 - 1 / 0.6 - 2 - 2.56) / 4, 12);
    expect(result.metrics['offpolicy/token_frac']).toBe(0.5);
    expect(result.metrics['offpolicy/prob_mean']).toBeCloseTo(0.3, 12);
    expect(mixed.expertTerm).toBe('policy-shaping');
  });

  it('weights are the numerical gradient of the loss in each log-prob', () => {
    const base = sequence(flags);
    const h = 1e-6;
    const weights = mixed.compute([base], {}).weights[0];
    base.logprobs.forEach((_, t) => {
      const shift = (delta: number) => {
        const logprobs = [...base.logprobs];
        logprobs[t] += delta;
        return mixed.compute([{ ...base, logprobs }], {}).loss;
      };
      // Token 3 sits on the clip bound's flat side: its gradient is 0 either way.
      expect((shift(h) - shift(-h)) / (2 * h)).toBeCloseTo(weights[t], 6);
    });
  });

  it('without offPolicy flags it is the base loss bit for bit (weights, loss, metrics)', () => {
    const plain = ppo.compute([sequence()], {});
    const viaMixed = mixed.compute([sequence()], {});
    expect(viaMixed).toEqual(plain);
    expect(mixed.compute([sequence([false, false, false, false])], {})).toEqual(plain);
  });

  it('expert tokens get no ratio and no clip: the same term whatever oldLogprobs say', () => {
    const moved = { ...sequence(flags), oldLogprobs: [-5, -5, Math.log(0.3), Math.log(0.2)] };
    expect(mixed.compute([moved], {}).weights).toEqual(mixed.compute([sequence(flags)], {}).weights);
  });

  it("'sft' term: −1·coefficient on expert tokens whatever the advantage", () => {
    const sft = withExpertTokens(ppo, { name: 'sft' });
    const weights = sft.compute([{ ...sequence(flags), advantages: -3 }], {}).weights[0];
    expect(weights[0]).toBeCloseTo(-1 / 4, 12);
    expect(weights[1]).toBeCloseTo(-1 / 4, 12);
    expect(weights[2]).toBeCloseTo(3 / 4, 12);
  });

  it("'trust-region-sft' (TRAPO): −min(1, π/α) on expert tokens whatever the advantage, value −π/max(π, α)", () => {
    const trsft = withExpertTokens(ppo, { name: 'trust-region-sft' });
    // Expert π = 0.1 sits on the bound (weight −1), π = 0.5 inside (−1); a third expert token at π = 0.02
    // is outside: −0.02/0.1 = −0.2. Own tokens keep ppo-clip (A = −3 → +3 at r = 1).
    const outside: LossSequence = {
      ...sequence(flags),
      logprobs: [Math.log(0.1), Math.log(0.5), Math.log(0.3), Math.log(0.02)],
      oldLogprobs: [0, 0, Math.log(0.3), Math.log(0.02)],
      advantages: -3,
      offPolicy: [true, true, false, true],
    };
    const result = trsft.compute([outside], {});
    const expected = [-1, -1, 3, -0.2].map((w) => w / 4);
    result.weights[0].forEach((w, t) => {
      expect(w).toBeCloseTo(expected[t], 12);
    });
    expect(result.loss).toBeCloseTo((-1 - 1 + 3 - 0.2) / 4, 12);
    // Outside the region the value is −π/α, whose derivative in logp is the weight (finite differences).
    const h = 1e-6;
    const shifted = (delta: number) => {
      const logprobs = [...outside.logprobs];
      logprobs[3] += delta;
      return trsft.compute([{ ...outside, logprobs }], {}).loss;
    };
    expect((shifted(h) - shifted(-h)) / (2 * h)).toBeCloseTo(result.weights[0][3], 6);
    // α from the options: at α = 0.6 the π = 0.5 token is outside, −0.5/0.6.
    const wide = withExpertTokens(ppo, { name: 'trust-region-sft', options: { alpha: 0.6 } });
    expect(wide.compute([outside], {}).weights[0][1]).toBeCloseTo(-0.5 / 0.6 / 4, 12);
    expect(() => withExpertTokens(ppo, { name: 'trust-region-sft', options: { alpha: 0 } })).toThrow(
      ConfigError,
    );
  });

  it('γ from the options; bad term names and options are refused', () => {
    const gamma = withExpertTokens(ppo, { name: 'policy-shaping', options: { gamma: 0.5 } });
    // π = 0.5, γ = 0.5, A = 2: −2·0.25/1 = −0.5, over 4 tokens.
    expect(gamma.compute([sequence(flags)], {}).weights[0][1]).toBeCloseTo(-0.5 / 4, 12);
    expect(() => withExpertTokens(ppo, { name: 'nope' })).toThrow(UnknownNameError);
    expect(() => withExpertTokens(ppo, { name: 'policy-shaping', options: { gama: 1 } })).toThrow(
      ConfigError,
    );
    const opaque = { ...ppo, tokenLoss: undefined } as PolicyLoss;
    expect(() => withExpertTokens(opaque, { name: 'sft' })).toThrow(/no per-token term/);
  });
});
