// Self-play at RL set-up: checks the `selfPlay:` block against the run's tasks (before anything is
// written) and builds the SelfPlay state (round.ts) from the fixed pool (few-shot examples) and the
// held-out problems (contamination keys). Only tasks with `parseProblem` take part.
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { entryTask, heldOutFraction, heldOutProblems, type MixEntry } from '../tasks/problem-mix.ts';
import type { SelfPlayConfig } from './config.ts';
import { GeneratedPool } from './pool.ts';
import type { SelfPlay } from './round.ts';
import { heldOutKeys } from './screen.ts';

interface SetupConfig {
  tasks: MixEntry[];
  seed: number;
  selfPlay?: SelfPlayConfig;
  eval: { problemsPerDifficulty: number };
}

/** The mix entries that take part; throws ConfigError on a block that cannot run. */
export function validateSelfPlay(config: SetupConfig): MixEntry[] {
  const block = config.selfPlay;
  if (block === undefined) return [];
  if (block.generator !== 'policy' && block.trainGenerator) {
    throw new ConfigError(
      'selfPlay.trainGenerator: a checkpoint generator is frozen and cannot be trained; use generator: policy, or trainGenerator: false',
    );
  }
  const entries = config.tasks.filter(
    (entry) =>
      (block.tasks === undefined || block.tasks.includes(entry.task)) &&
      entryTask(entry).parseProblem !== undefined,
  );
  for (const name of block.tasks ?? []) {
    if (!config.tasks.some((entry) => entry.task === name)) {
      throw new ConfigError(`selfPlay.tasks: ${name} is not one of the run's tasks`);
    }
  }
  if (entries.length === 0) {
    throw new ConfigError(
      "selfPlay: none of the run's tasks takes generated problems (needs parseProblem: addition, countdown)",
    );
  }
  return entries;
}

/**
 * The run's SelfPlay state (an empty pool), or null when the block is absent. `generator`: the frozen
 * generator built from `selfPlay.generator.checkpoint` (generator-setup.ts), or null for the student.
 */
export function createSelfPlay(
  config: SetupConfig,
  pool: readonly Problem[],
  generator: PolicyBackend | null = null,
): SelfPlay | null {
  const block = config.selfPlay;
  if (block === undefined) return null;
  const entries = validateSelfPlay(config);
  const heldOut = heldOutProblems(config.tasks, config.eval.problemsPerDifficulty, config.seed);
  const tasks = [...new Map(entries.map((entry) => [entry.task, entryTask(entry)])).values()].map((task) => {
    const examples = pool.filter((problem) => problem.task === task.name);
    if (examples.length === 0)
      throw new ConfigError(`selfPlay: the pool has no ${task.name} problems to show as examples`);
    return { task, examples, heldOut: heldOutKeys(task, heldOut) };
  });
  return { config: block, pool: new GeneratedPool(block.poolLimit), tasks, heldOutFraction, generator };
}
