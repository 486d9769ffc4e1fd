// The `rollout.budget` block of the train config (the run component `budget`: components/rollout-budget/rollout-budget.ts).
import { z } from 'zod';

export const rolloutBudgetDefaults = {
  enabled: false,
  min: 2,
  max: null,
  passRates: 'auto' as const,
  discount: 0,
};

export const rolloutBudgetSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** Samples per problem at least (the advantage estimator's minimum group size or more). */
    min: z.number().int().positive().default(2),
    /** Samples per problem at most (null = 4 × groupSize). */
    max: z.number().int().positive().nullable().default(null),
    /** Where pass-rate estimates come from: the selector's (bots), the run's history, or auto (selector if it has them). */
    passRates: z.enum(['auto', 'selector', 'history']).default('auto'),
    /** History only: evidence fades toward the prior by (1 − discount) per step. */
    discount: z.number().min(0).lt(1).default(0),
  })
  .default(rolloutBudgetDefaults);
