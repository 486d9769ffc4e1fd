// Run component `budget`: the adaptive rollout budget (components/rollout-budget/rollout-budget.ts) plans samples per problem,
// learns pass rates from each step's outcomes and saves them under the checkpoint key `budget`.

import { advantageEstimators } from '../../../algorithms/advantages/index.ts';
import type { RlContext } from '../../rl/context.ts';
import { type BuiltComponent, defineRlComponent, findComponent } from '../definition.ts';
import { createRolloutBudget, type RolloutBudget, validateRolloutBudget } from './rollout-budget.ts';

export interface RolloutBudgetComponent extends BuiltComponent {
  readonly budget: RolloutBudget;
}

export const rolloutBudgetComponent = defineRlComponent({
  id: 'budget',
  block: 'rollout.budget',
  validate: (config) => {
    // The estimator's minimum group size holds for the budget's smallest group too.
    if (config.rollout.budget.enabled) {
      advantageEstimators.get(config.algorithm.advantage.name).validate(config.rollout.budget.min);
    }
    validateRolloutBudget(config);
  },
  description: 'rollout.budget: samples per problem by outcome uncertainty p(1 − p)',
  create({ config, selector }): RolloutBudgetComponent | null {
    const budget = createRolloutBudget(config, selector);
    if (!budget) return null;
    return {
      id: 'budget',
      budget,
      hooks: {
        planSizes: ({ timer }, problems) => timer.time('budget', () => budget.plan(problems)),
        observe: (outcomes) => budget.observe(outcomes),
      },
      state: () => budget.state(),
      load: (saved) => budget.load(saved),
      metrics: () => budget.metrics(),
    };
  },
});

/** The run's rollout budget, when rollout.budget is enabled. */
export function rolloutBudgetOf(ctx: Pick<RlContext, 'components'>): RolloutBudget | undefined {
  return findComponent<RolloutBudgetComponent>(ctx.components, 'budget')?.budget;
}
