// What a resumed run continues with. A run is resumed with its stored config (config.json), by the
// command that made it: `pretrain --resume` takes only pretrain runs and `train --resume` only RL runs
// (the kind is read from the stored config: each parses under exactly one of the two strict schemas).
// The one setting a resume may change is train.steps (`--steps`, or the train.steps of a `--config` given
// alongside): that extends, or shortens, the run; a `--config` that differs in anything else is refused,
// rather than ignored.
import { UserError } from '../core/errors.ts';
import { RunStore } from '../runs/run-store.ts';
import { type PretrainConfig, pretrainConfigSchema } from './pretrain-config.ts';
import { type RlConfig, rlConfigSchema } from './rl/config.ts';

export type RunKind = 'pretrain' | 'train';

const made: Record<RunKind, string> = {
  pretrain: 'a pretrain run (made by curricula pretrain)',
  train: 'an RL run (made by curricula train)',
};

/** Which command made the run whose stored config this is, or null when neither schema accepts it. */
export function runKindOf(config: unknown): RunKind | null {
  if (pretrainConfigSchema.safeParse(config).success) return 'pretrain';
  if (rlConfigSchema.safeParse(config).success) return 'train';
  return null;
}

export interface ResumeRequest<Config> {
  /** The run directory given to --resume. */
  dir: string;
  /** A --config given alongside (already validated), or null. */
  given: Config | null;
  /** --steps: the run's new total number of steps. */
  steps?: number;
}

export interface ResumedConfig<Config> {
  config: Config;
  /** The stored train.steps when the resume changes it (the caller records the change in the run). */
  previousSteps?: number;
}

export function resumedPretrainConfig(request: ResumeRequest<PretrainConfig>): ResumedConfig<PretrainConfig> {
  return resumed('pretrain', request, (stored) => pretrainConfigSchema.parse(stored));
}

export function resumedRlConfig(request: ResumeRequest<RlConfig>): ResumedConfig<RlConfig> {
  return resumed('train', request, (stored) => rlConfigSchema.parse(stored));
}

function resumed<Config extends { train: { steps: number } }>(
  kind: RunKind,
  request: ResumeRequest<Config>,
  parse: (stored: unknown) => Config,
): ResumedConfig<Config> {
  const { dir, given } = request;
  const stored = RunStore.readConfig(dir);
  const found = runKindOf(stored);
  if (found !== kind) {
    const other: RunKind = kind === 'pretrain' ? 'train' : 'pretrain';
    const what = found ? made[found] : 'not a run whose config.json this version can read';
    const hint = found === other ? `; continue it with curricula ${other} --resume ${dir}` : '';
    throw new UserError(`${kind} --resume ${dir}: it is ${what}, not ${made[kind]}${hint}`);
  }
  const config = parse(stored);
  if (given) {
    const differences = differingPaths(withSteps(sameAutoWorkers(given, config), 0), withSteps(config, 0));
    if (differences.length > 0) {
      throw new UserError(
        `${kind} --resume ${dir}: the given --config differs from the run's stored config at ${differences.slice(0, 5).join(', ')}${differences.length > 5 ? ', …' : ''}; a resume uses the stored config (only train.steps may change): drop --config, or start a new run`,
      );
    }
  }
  const steps = request.steps ?? given?.train.steps ?? config.train.steps;
  if (steps === config.train.steps) return { config };
  return { config: withSteps(config, steps), previousSteps: config.train.steps };
}

/** A resume with a new train.steps: refused when it would end before the checkpoint, else stored. */
export function recordNewSteps(
  store: RunStore,
  step: number,
  previousSteps: number,
  config: { train: { steps: number } },
): void {
  if (config.train.steps < step) {
    throw new UserError(
      `${store.dir} is at step ${step} (its latest checkpoint); --steps ${config.train.steps} would end before it: give at least ${step}`,
    );
  }
  store.updateConfig(config, { 'train.steps': { from: previousSteps, to: config.train.steps } });
}

/**
 * A given config whose policy.workers (or, on the native engine, policy.threads) is `auto` or absent
 * matches any stored count, and one without policy.engine any stored engine: a new run stores `auto`
 * resolved to a number and the default engine by name (pinWorkerCount), so the config file that made it
 * still matches. Each of the three is taken from the stored config on its own.
 */
function sameAutoWorkers<Config>(given: Config, stored: Config): Config {
  type Counts = { workers?: unknown; threads?: unknown; engine?: unknown };
  const policy = (given as { policy?: Counts }).policy;
  const storedPolicy = (stored as { policy?: Counts }).policy;
  const unpinned = (value: unknown) => value === undefined || value === 'auto';
  if (!unpinned(policy?.workers) && !unpinned(policy?.threads) && policy?.engine !== undefined) return given;
  if (!policy) return { ...given, policy: storedPolicy };
  const merged: Counts = { ...policy };
  for (const key of ['workers', 'threads', 'engine'] as const) {
    if (!unpinned(policy[key])) continue;
    if (storedPolicy?.[key] === undefined) delete merged[key];
    else merged[key] = storedPolicy[key];
  }
  return { ...given, policy: merged };
}

function withSteps<Config extends { train: { steps: number } }>(config: Config, steps: number): Config {
  return { ...config, train: { ...config.train, steps } };
}

/** Dotted paths at which two JSON values differ. */
function differingPaths(a: unknown, b: unknown, path = ''): string[] {
  const isObject = (value: unknown) => typeof value === 'object' && value !== null;
  if (isObject(a) && isObject(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    return [...keys].flatMap((key) =>
      differingPaths(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        path ? `${path}.${key}` : key,
      ),
    );
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(top level)'];
}
