// A selector, an advantage estimator and a loss of your own, each checked by its conformance helper and
// registered under a name a config can use (selector.name, algorithm.advantage.name, algorithm.loss.name).
// The option schemas are zod 4 schemas: install zod beside curricula (./package.json lists both, zod at
// the version the package's own schemas use).
import { ConfigError, registerAdvantage, registerLoss, registerSelector } from 'curricula';
import { aggregationOptionsShape, defineAdvantageEstimator, definePolicyLoss, includeAll } from 'curricula/algorithms';
import type { SelectorFactory } from 'curricula/curricula';
import { checkAdvantage, checkLoss, checkSelector } from 'curricula/testing';
import { z } from 'zod';

/** Easiest first: problems in order of difficulty, cycling; no options (any is a ConfigError). */
const easiestFirst: SelectorFactory = (pool, options) => {
  const keys = Object.keys(options ?? {});
  if (keys.length > 0) throw new ConfigError(`selector 'easiest-first' takes no options, got ${keys.join(', ')}`);
  if (pool.length === 0) throw new ConfigError("selector 'easiest-first': the problem pool is empty");
  const ordered = [...pool].sort((a, b) => a.difficulty - b.difficulty || (a.id < b.id ? -1 : 1));
  let cursor = 0;
  let observed = 0;
  return {
    name: 'easiest-first',
    // `!`: the index is below ordered.length, which is not 0.
    select: (count) => Array.from({ length: count }, () => ordered[cursor++ % ordered.length]!),
    observe: (_step, outcomes) => {
      observed += outcomes.length;
    },
    state: () => ({ cursor, observed }),
    load: (state) => {
      ({ cursor, observed } = state as { cursor: number; observed: number });
    },
    metrics: () => ({ 'curriculum/cursor': cursor, 'curriculum/observed': observed }),
  };
};

/** Advantage = reward − group mean (Dr. GRPO without the std division). */
const centred = defineAdvantageEstimator({
  name: 'centred',
  description: 'reward minus the group mean',
  paper: 'Understanding R1-Zero-Like Training (arXiv 2503.20783)',
  minGroupSize: 2,
  optionsSchema: z.strictObject({}),
  compute: (groups) => ({
    advantages: groups.map(({ rewards }) => {
      const mean = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
      return rewards.map((reward) => reward - mean);
    }),
    included: includeAll(groups),
  }),
});

/** REINFORCE with importance weights: ℓ = −A·exp(logp − logp_old), dℓ/dlogp = ℓ. */
const reinforce = definePolicyLoss({
  name: 'my-reinforce',
  description: 'importance-weighted REINFORCE',
  paper: 'Williams 1992',
  optionsSchema: z.strictObject(aggregationOptionsShape),
  requireOldLogprobs: false,
  tokenLoss: ({ logprob, oldLogprob, advantage }) => {
    const value = -advantage * Math.exp(logprob - oldLogprob);
    return { value, derivative: value };
  },
});

checkSelector(easiestFirst);
checkAdvantage(centred, { centred: true });
checkLoss(reinforce);
registerSelector('easiest-first', easiestFirst);
registerAdvantage('centred', centred);
registerLoss('my-reinforce', reinforce);
console.log('registered easiest-first, centred and my-reinforce');
