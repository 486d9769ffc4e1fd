// Admission at the student's edge of competence and the generator's reward (issue 16 item 4).
// A screened proposal is attempted `samples` times by the student; it is admitted iff its pass rate lies in
// [minPass, maxPass] (SeRL ¶88's difficulty filter). The generator's reward (Tool-R0 ¶118, "hard but
// solvable") is 0 for a rejected proposal and, for a screened one, a triangle over the band: 1 at the
// band's centre, falling linearly to 0 just outside it. Deviation: Tool-R0 scores against the solver's
// pass rate with its own shaping; ours is this triangle, and 'admitted' (1 when admitted, else 0) is the
// plain alternative. SOAR ¶82's reward (the student's improvement after training on the problems) is not
// implemented: it needs a held-out measurement per proposal batch.
import type { SelfPlayConfig } from './config.ts';

export type Band = SelfPlayConfig['admit'];

/** Why a proposal was not admitted (screen.ts reasons plus the two band outcomes). */
export type RejectReason =
  | 'unparsable'
  | 'out-of-grammar'
  | 'too-long'
  | 'duplicate'
  | 'held-out'
  | 'too-easy'
  | 'too-hard';

export const rejectReasons: readonly RejectReason[] = [
  'unparsable',
  'out-of-grammar',
  'too-long',
  'duplicate',
  'held-out',
  'too-easy',
  'too-hard',
];

/** Admitted, or too easy / too hard for the student, from its passes over `samples` attempts. */
export function bandVerdict(
  passes: number,
  samples: number,
  band: Band,
): 'admitted' | 'too-easy' | 'too-hard' {
  if (!(samples > 0) || passes < 0 || passes > samples) {
    throw new RangeError(`passes must be in [0, samples] with samples > 0, got ${passes}/${samples}`);
  }
  const rate = passes / samples;
  if (rate > band.maxPass) return 'too-easy';
  if (rate < band.minPass) return 'too-hard';
  return 'admitted';
}

/** The generator's reward for one proposal: null pass rate = rejected before any attempt. */
export function generatorReward(kind: SelfPlayConfig['reward'], passRate: number | null, band: Band): number {
  if (passRate === null || passRate < band.minPass || passRate > band.maxPass) return 0;
  if (kind === 'admitted') return 1;
  const centre = (band.minPass + band.maxPass) / 2;
  const half = (band.maxPass - band.minPass) / 2;
  if (half === 0) return 1;
  // At the band's edges the reward is small but positive (an admitted problem always earns something).
  return 1 - Math.abs(passRate - centre) / (half * 1.25);
}
