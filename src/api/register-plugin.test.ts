// registerPlugin: a plug-in defined with a define* wrapper registers under its id with its plug-in
// fields (so the method index can list it), into the default registries the loop uses.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAdvantage } from '../algorithms/advantages/estimator.ts';
import { defineSelector } from '../curricula/define.ts';
import { createUniform } from '../curricula/uniform.ts';
import { defaultRegistries } from '../training/registries.ts';
import { registerPlugin } from './register.ts';

describe('registerPlugin', () => {
  it('registers a selector and an advantage with their plug-in fields', () => {
    const selector = defineSelector({
      id: 'plugin-test-selector',
      description: 'uniform under another name, for this test',
      paper: { title: 'none', arxiv: '0000.00000' },
      optionsSchema: z.strictObject({}),
      create: createUniform,
    });
    registerPlugin(selector, { origin: 'register-plugin.test' });
    const { selectors, advantages } = defaultRegistries();
    expect(selectors.get('plugin-test-selector')).toBe(createUniform);
    expect(selectors.info('plugin-test-selector')?.paper).toEqual({ title: 'none', arxiv: '0000.00000' });
    expect(() => registerPlugin(selector)).toThrow("selector 'plugin-test-selector' is already registered");

    const constant = defineAdvantage({
      id: 'plugin-test-advantage',
      description: 'advantage 1 for every sample, for this test',
      minGroupSize: 1,
      optionsSchema: z.strictObject({}),
      compute: (groups) => ({
        advantages: groups.map((group) => group.rewards.map(() => 1)),
        included: groups.map((group) => group.rewards.map(() => true)),
      }),
    });
    registerPlugin(constant);
    expect(advantages.get('plugin-test-advantage').estimate([{ rewards: [0, 1] }]).advantages).toEqual([
      [1, 1],
    ]);
    expect(advantages.info('plugin-test-advantage')?.kind).toBe('advantage');
  });
});
