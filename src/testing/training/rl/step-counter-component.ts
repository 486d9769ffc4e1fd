// Test support: the smallest run component (rl/context.ts, RlComponent), a step-level metric logger with
// state that survives resume. It counts the steps it has seen and the groups sampled over them, logs both
// each step (`toy/steps_seen`, `toy/groups_seen`) and saves them under the checkpoint key `stepCounter`.
// Adding it to `curricula train` is this file plus one line in src/training/components/index.ts; the test
// (components/step-counter.test.ts) adds it through a run kind instead, so the product list stays as is.
import { defineRlComponent } from '../../../training/components/definition.ts';

export const stepCounterComponent = defineRlComponent({
  id: 'stepCounter',
  description: 'test fixture: counts steps and sampled groups, across resume',
  create() {
    let counts = { steps: 0, groups: 0 };
    return {
      id: 'stepCounter',
      hooks: {
        async afterUpdate(_scope, sampledAll) {
          counts = { steps: counts.steps + 1, groups: counts.groups + sampledAll.length };
          return {};
        },
      },
      metrics: () => ({ 'toy/steps_seen': counts.steps, 'toy/groups_seen': counts.groups }),
      state: () => ({ ...counts }),
      load(saved) {
        if (saved !== undefined) counts = { ...(saved as typeof counts) };
      },
    };
  },
});
