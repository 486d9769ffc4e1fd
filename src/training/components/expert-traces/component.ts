// Run component `expertTraces`: off-policy guidance (LUFFY / Prefix-RFT). When a round's attempts carry
// expert traces, they replace some sampled members (components/expert-traces/expert-traces.ts); one random draw, only then.

import { defineRlComponent } from '../definition.ts';
import { hasExpertTraces, injectExpertTraces } from './expert-traces.ts';

export const expertTracesComponent = defineRlComponent({
  id: 'expertTraces',
  description: "guidance's expert traces join their groups after sampling (LUFFY, Prefix-RFT)",
  create: () => ({
    id: 'expertTraces',
    hooks: {
      async afterSample({ ctx, timer }, attempts, groups) {
        if (!hasExpertTraces(attempts)) return;
        await timer.timeAsync('inject', () => injectExpertTraces(ctx, groups, ctx.rng.nextUint32()));
      },
    },
  }),
});
