// Run component `retry`: reflect-then-retry (guidance with a `retry` hook): a second, helped round for
// failed groups after grading (components/retry/retry-round.ts); one random draw per rollout round.

import { defineRlComponent } from '../definition.ts';
import { retryRound } from './retry-round.ts';

export const retryComponent = defineRlComponent({
  id: 'retry',
  description: "a second, helped round for failed groups (guidance 'retry')",
  // Asks the run's guidance at each step (a command built on the loop may replace it after setup).
  create: () => ({
    id: 'retry',
    hooks: {
      afterGrade: ({ ctx, step, timer }, groups) =>
        ctx.guidance.retry
          ? timer.timeAsync('retry', () => retryRound(ctx, groups, step, ctx.rng.nextUint32()))
          : Promise.resolve(),
    },
  }),
});
