// examples/ladder-retry.yaml and examples/ladder-rubric-scaffold.yaml: valid configs whose scaffold builds
// on the drawn pool, and whose scaffolded prompts leave room for a whole worked solution in ladder-cold's
// 128-token context (char tokenizer: one token per character, plus BOS and EOS), as their headers compute.
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../core/config.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { drawPool, validateRlConfig } from '../training/rl/setup.ts';
import { guidances } from './index.ts';

const contextLength = 128;

const load = (file: string) => {
  const config = loadConfigFile(rlConfigSchema, file);
  validateRlConfig(config);
  const pool = drawPool(config);
  const guidance = guidances.get(config.guidance.name)(config.guidance.options, {
    pool,
    totalSteps: config.train.steps,
    source: file,
    groupSize: config.rollout.groupSize,
    adaptiveGroupSize: config.rollout.budget.enabled,
    seed: config.seed,
  });
  return { config, pool, guidance };
};

/** BOS + prompt + solution + EOS, in tokens of a char tokenizer. */
const fits = (prompt: string, solution: string) => 1 + prompt.length + solution.length + 1 <= contextLength;

describe('scaffold example configs on the ladder', () => {
  it('ladder-rubric-scaffold: every member prompt of step 1 fits with its whole solution', () => {
    const { pool, guidance } = load('examples/ladder-rubric-scaffold.yaml');
    const attempts = guidance.plan(pool, 1);
    // A problem whose criteria all hold its (small) answer has none to show: a bare attempt.
    const scaffolded = attempts.filter((attempt) => attempt.memberPrompts);
    expect(scaffolded.length).toBeGreaterThan(0.9 * attempts.length);
    for (const attempt of scaffolded) {
      expect(attempt.memberPrompts).toHaveLength(8);
      for (const prompt of attempt.memberPrompts!) expect(fits(prompt, attempt.problem.solution)).toBe(true);
    }
  });

  it('ladder-retry: the retry prompt of a failed attempt fits with the whole solution', () => {
    const { pool, guidance } = load('examples/ladder-retry.yaml');
    guidance.plan(pool, 1);
    // The longest diagnosis: the wrong digit counted from the right (one digit at 8 digits).
    const groups = pool.map((problem) => ({
      attempt: { problem, prompt: problem.prompt, prefix: '', guided: false },
      completions: Array.from(
        { length: 8 },
        () => `A:${problem.answer.replace(/.$/, (d) => String((Number(d) + 1) % 10))}`,
      ),
      results: Array.from({ length: 8 }, () => ({ reward: 0, components: {}, reason: 'wrong' })),
    }));
    const requests = guidance.retry!.plan(1, groups);
    expect(requests).toHaveLength(pool.length);
    for (const request of requests) {
      // The guard cuts the diagnosis where a one-digit answer occurs in it ("wrong digit 1" for 1+0).
      expect(`${request.attempt.problem.prompt}wrong digit 1 from right\n`).toContain(
        request.attempt.prompt.slice(0, -1),
      );
      expect(fits(request.attempt.prompt, request.attempt.problem.solution)).toBe(true);
    }
  });
});
