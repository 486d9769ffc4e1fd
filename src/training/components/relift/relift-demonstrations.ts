// Where ReLIFT's demonstrations come from (src/training/components/relift/relift.ts). The authors train on a fixed
// target per question, the dataset's `target` column (OpenR1 solutions written by DeepSeek-R1; read by
// relift/verl/verl/relift/rl_dataset_with_target.py); here that is the problem's worked solution
// (`Problem.solution`), source 'solutions'. A teacher that writes demonstrations on demand can be plugged
// in as another source: its factory checks its setup (the teacher exists, shares the tokenizer) and
// refuses the run with a ConfigError before any model is loaded; its `demonstrate` may answer null for a
// problem or throw, which costs those problems their place in the buffer for that step (counted as
// relift/source_failures), never the run.
import { ConfigError } from '../../../core/errors.ts';
import type { Problem } from '../../../core/problem.ts';
import { Registry } from '../../../core/registry.ts';
import { missingSolutions } from '../../../guidance/worked-solution.ts';

export interface DemonstrationSource {
  readonly name: string;
  /** One completion text per problem (EOS not included), or null when there is none this time. */
  demonstrate(problems: readonly Problem[]): Promise<(string | null)[]>;
}

export interface DemonstrationContext {
  /** The selector's pool: every problem that can fail. */
  pool: readonly Problem[];
  /** Where the pool came from (a pool file, the task mix), for config-time error messages. */
  source: string;
}

export type DemonstrationSourceFactory = (
  options: Record<string, unknown>,
  context: DemonstrationContext,
) => DemonstrationSource;

/**
 * The worked solutions. Refuses a pool with problems lacking one (empty `solution`): they could fail and
 * would have nothing to be trained on.
 */
export function createSolutionSource(
  options: Record<string, unknown>,
  context: DemonstrationContext,
): DemonstrationSource {
  const keys = Object.keys(options);
  if (keys.length > 0) {
    throw new ConfigError(
      `algorithm.relift.demonstrations: source 'solutions' takes no options (got ${keys.join(', ')})`,
    );
  }
  const missing = missingSolutions(context.pool, context.source);
  if (missing) {
    throw new ConfigError(
      `algorithm.relift needs worked solutions as demonstrations, but ${missing}; give them solutions or set algorithm.relift.enabled: false`,
    );
  }
  return {
    name: 'solutions',
    demonstrate: async (problems) => problems.map((problem) => problem.solution),
  };
}

/** Filled on first use (core/registry.ts): importing this file registers nothing. */
export const demonstrationSources = new Registry<DemonstrationSourceFactory>(
  'ReLIFT demonstration source',
  (registry) => registry.register('solutions', createSolutionSource),
);
