// Every registered scaffold passes checkGuidance (./conformance.ts), the helper a user runs on their own
// scaffold; and the helper fails deliberately broken scaffolds with the reason.
import { describe, expect, it } from 'vitest';
import { checkGuidance } from './conformance.ts';
import type { Guidance } from './guidance.ts';
import { createIdentityGuidance } from './identity.ts';
import { guidances } from './index.ts';

/** What a scaffold needs beyond the default context (teachers for ampo). */
const extra: Record<string, Parameters<typeof checkGuidance>[1]> = {
  ampo: { options: { teachers: ['t1'] }, context: { teachers: ['t1'] } },
};

describe.each(guidances.names())('guidance %s', (name) => {
  it('passes checkGuidance', () => {
    const report = checkGuidance(guidances.get(name), { name, ...extra[name] });
    expect(report.checks).toContain('a restored scaffold plans the same next attempts');
  });
});

describe('checkGuidance on broken scaffolds', () => {
  const wrap = (change: (guidance: Guidance) => Partial<Guidance>) => (options: unknown) => {
    const guidance = createIdentityGuidance(options);
    return { ...guidance, ...change(guidance) } as Guidance;
  };

  it('names the broken property', () => {
    const dropping = wrap((g) => ({ plan: (problems, step) => g.plan(problems, step).slice(1) }));
    expect(() => checkGuidance(dropping)).toThrow(
      'plan() gives one attempt per problem (step 1: 5 attempts for 6 problems)',
    );
    const noPrefix = wrap((g) => ({
      plan: (problems, step) => g.plan(problems, step).map((a) => ({ ...a, prefix: undefined as never })),
    }));
    expect(() => checkGuidance(noPrefix)).toThrow("attempt.prefix is a string ('' = none)");
    const nan = wrap(() => ({ metrics: () => ({ 'guidance/x': Number.NaN }) }));
    expect(() => checkGuidance(nan)).toThrow('metric values are finite numbers (guidance/x = NaN)');
    const forgetful = wrap(() => ({ load: () => {} }));
    expect(() => checkGuidance(forgetful)).toThrow('load(state()) restores the same state');
  });
});
