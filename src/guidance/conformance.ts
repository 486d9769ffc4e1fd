// Conformance of a guidance scaffold (./guidance.ts): the checks every registered scaffold passes
// (conformance.test.ts runs this on each) and a user's scaffold can be run through (`checkGuidance` in
// src/api/testing.ts): plan() gives one attempt per problem, in order, for that problem, with a string
// prompt and prefix and a boolean `guided` (expert traces, member prompts and a training prompt, when
// present, have their documented shapes); observe() takes graded groups; metrics are finite numbers under
// guidance/…; the state survives a JSON round trip exactly (a fresh instance loaded from it plans the
// same next attempts); unknown option keys are refused with a ConfigError. The problems are addition
// problems at difficulties 1-3; the outcomes are seeded Bernoulli draws (p = 0.5 at difficulty 1, less
// above), so some groups have no success (what most scaffolds react to).
import { Checker, type ConformanceReport, deepEqual, preview } from '../core/conformance.ts';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { addition } from '../tasks/addition.ts';
import type { Attempt, Guidance, GuidanceContext, GuidanceFactory } from './guidance.ts';

/** Options of checkGuidance. */
export interface GuidanceCheckOptions {
  /** The name the scaffold must report (default: whatever it reports). */
  name?: string;
  /** Options given to the factory (default {}). */
  options?: Record<string, unknown>;
  /** Overrides of the default context (pool of 24 addition problems, 20 steps, group size 4, seed 0). */
  context?: Partial<GuidanceContext>;
  /** Check that unknown option keys are refused with a ConfigError (default true). */
  strictOptions?: boolean;
}

const groupSize = 4;

/** 24 addition problems, 8 at each of difficulties 1-3 (seeded). */
export function guidancePool(): Problem[] {
  const rng = new Rng(17);
  return Array.from({ length: 24 }, (_, i) => addition.generate(rng, 1 + (i % 3)));
}

function contextOf(options: GuidanceCheckOptions, pool: Problem[]): GuidanceContext {
  return { pool, totalSteps: 20, source: 'conformance pool', groupSize, seed: 0, ...options.context };
}

/** Runs `steps` plan/observe rounds on batches of 6 problems; returns the attempts planned. */
function drive(
  check: Checker,
  guidance: Guidance,
  pool: Problem[],
  first: number,
  steps: number,
): Attempt[][] {
  const plans: Attempt[][] = [];
  const outcomeRng = new Rng(1000 + first);
  for (let step = first; step < first + steps; step++) {
    const problems = Array.from({ length: 6 }, (_, i) => pool[(step * 5 + i * 7) % pool.length]);
    const attempts = check.call(`plan() at step ${step}`, () => guidance.plan(problems, step));
    checkAttempts(check, attempts, problems, step);
    plans.push(attempts);
    const outcomes: GroupOutcome[] = problems.map((problem) => {
      const p = 0.5 / problem.difficulty ** 2;
      const rewards: number[] = Array.from({ length: groupSize }, () => (outcomeRng.next() < p ? 1 : 0));
      const mean = rewards.reduce((sum, reward) => sum + reward, 0) / groupSize;
      return { problem, rewards, advantages: rewards.map((reward) => reward - mean) };
    });
    check.call(`observe() at step ${step}`, () => guidance.observe(step, outcomes));
  }
  return plans;
}

function checkAttempts(check: Checker, attempts: Attempt[], problems: Problem[], step: number): void {
  check.that(
    Array.isArray(attempts) && attempts.length === problems.length,
    'plan() gives one attempt per problem',
    () => `step ${step}: ${preview(attempts?.length)} attempts for ${problems.length} problems`,
  );
  attempts.forEach((attempt, i) => {
    const at = () => `step ${step}, attempt ${i}: ${preview(attempt, 120)}`;
    check.that(attempt?.problem?.id === problems[i].id, 'attempt i is for problem i', at);
    check.that(
      typeof attempt.prompt === 'string' && attempt.prompt.length > 0,
      'attempt.prompt is a non-empty string',
      at,
    );
    check.that(typeof attempt.prefix === 'string', "attempt.prefix is a string ('' = none)", at);
    check.that(typeof attempt.guided === 'boolean', 'attempt.guided is a boolean', at);
    if (attempt.offPolicy !== undefined) {
      check.that(
        Array.isArray(attempt.offPolicy) &&
          attempt.offPolicy.every(
            (trace) => typeof trace?.text === 'string' && typeof trace.complete === 'boolean',
          ),
        'attempt.offPolicy is a list of {text, complete}',
        at,
      );
    }
    if (attempt.trainPrompt !== undefined) {
      check.that(typeof attempt.trainPrompt === 'string', 'attempt.trainPrompt is a string', at);
    }
    if (attempt.memberPrompts !== undefined) {
      check.that(
        Array.isArray(attempt.memberPrompts) &&
          attempt.memberPrompts.every((prompt) => typeof prompt === 'string'),
        'attempt.memberPrompts is a list of strings',
        at,
      );
    }
  });
}

/** Runs a scaffold factory through the guidance contract; throws ConformanceError at the first failure. */
export function checkGuidance(
  factory: GuidanceFactory,
  options: GuidanceCheckOptions = {},
): ConformanceReport {
  const check = new Checker(`guidance '${options.name ?? (factory.name || 'factory')}'`);
  check.that(typeof factory === 'function', 'is a factory (options, context) → Guidance');
  const pool = guidancePool();
  const context = contextOf(options, pool);
  const create = () => check.call('the factory', () => factory(options.options ?? {}, context));
  const guidance = create();
  check.that(typeof guidance === 'object' && guidance !== null, 'the factory returns an object', () =>
    preview(guidance),
  );
  for (const method of ['plan', 'observe', 'state', 'load', 'metrics'] as const) {
    check.that(typeof guidance[method] === 'function', `has a ${method}() method`);
  }
  if (options.name !== undefined) {
    check.that(guidance.name === options.name, 'reports its registered name', () => preview(guidance.name));
  }
  drive(check, guidance, pool, 1, 5);
  const metrics = check.call('metrics()', () => guidance.metrics());
  check.that(typeof metrics === 'object' && metrics !== null, 'metrics() returns an object', () =>
    preview(metrics),
  );
  for (const [key, value] of Object.entries(metrics)) {
    check.that(
      key.startsWith('guidance/') || key.includes('/'),
      "metric keys are namespaced ('guidance/…')",
      () => key,
    );
    check.that(Number.isFinite(value), 'metric values are finite numbers', () => `${key} = ${value}`);
  }

  const original = create();
  drive(check, original, pool, 1, 8);
  const saved = check.call('state() through JSON', () =>
    JSON.parse(JSON.stringify(original.state() ?? null)),
  );
  const restored = create();
  check.call('load(state)', () => restored.load(saved));
  check.that(
    deepEqual(restored.state() ?? null, original.state() ?? null),
    'load(state()) restores the same state',
    () => `${preview(restored.state())} vs ${preview(original.state())}`,
  );
  const next = drive(check, original, pool, 9, 4);
  const nextRestored = drive(check, restored, pool, 9, 4);
  check.that(deepEqual(nextRestored, next), 'a restored scaffold plans the same next attempts');

  if (options.strictOptions !== false) {
    check.throws('the factory refuses unknown option keys with a ConfigError', ConfigError, () =>
      factory({ ...options.options, conformanceBogusKey: 1 }, context),
    );
  }
  return check.report();
}
