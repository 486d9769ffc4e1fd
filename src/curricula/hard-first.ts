// hard-first — a fixed hard-to-easy schedule: train on the hardest level first and widen the set
// toward easier levels as training proceeds, uniformly over the allowed levels.
// Source: TAROT (Park et al., arXiv 2602.15449), the `var_asce_rev` label schedule in deep-diver/TAROT
// ({high} → {high, edge} → {medium, high, edge} → all, in equal fractions of training) [code]; the paper
// recommends hard-first for stronger base models [paper]. Here, with K difficulty levels and stage
// s = min(K−1, ⌊tK/T⌋), the allowed levels are the s+1 hardest ones (`cumulative: true`, as TAROT), or only
// level K−1−s (`cumulative: false`, the mirror of E2H classic).
// Deviation: TAROT's tiers are test-case labels inside one problem; here they are problem difficulty levels.
// [unverified]: TAROT's capability thresholds for choosing hard-first (not needed here: the choice is the user's).
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import { createLevelScheduleSelector } from './e2h.ts';
import { parseOptions, type SelectorContext, withRunDefaults } from './shared.ts';

export const hardFirstOptions = z.strictObject({
  totalSteps: z.number().int().positive(),
  cumulative: z.boolean().default(true),
});

/** Level distribution of the hard-first schedule at `step`. */
export function hardFirstProbabilities(
  step: number,
  totalSteps: number,
  levelCount: number,
  cumulative: boolean,
): number[] {
  const stage = Math.min(levelCount - 1, Math.floor((Math.min(step, totalSteps) * levelCount) / totalSteps));
  const lowest = levelCount - 1 - stage;
  return Array.from({ length: levelCount }, (_, level) => {
    if (!cumulative) return level === lowest ? 1 : 0;
    return level >= lowest ? 1 / (stage + 1) : 0;
  });
}

export function createHardFirst(pool: Problem[], options: unknown, context?: SelectorContext): TaskSelector {
  const config = parseOptions('hard-first', hardFirstOptions, withRunDefaults(options, context));
  return createLevelScheduleSelector('hard-first', pool, (step, levelCount) =>
    hardFirstProbabilities(step, config.totalSteps, levelCount, config.cumulative),
  );
}

export const hardFirstSelector = defineSelector({
  id: 'hard-first',
  description:
    'a fixed hard-to-easy schedule: the hardest level first, widening toward easier levels as training proceeds',
  paper: {
    title: 'TAROT (Park et al.)',
    arxiv: '2602.15449',
    code: 'deep-diver/TAROT (var_asce_rev schedule)',
  },
  optionsSchema: hardFirstOptions,
  create: createHardFirst,
});
