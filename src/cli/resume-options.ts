// `--resume` on `train` and `pretrain`: a resumed run continues with its stored config, so the options
// that would change it are refused by name rather than silently ignored. `--steps` is the exception: it
// sets the run's new total number of steps (extending it), see src/training/resume.ts.
import { UserError } from '../core/errors.ts';
import { RunStore } from '../runs/run-store.ts';

interface ResumeCommandOptions {
  resume?: string;
  seed?: string;
  workers?: unknown;
  set?: unknown[];
  name?: string;
  overwrite?: boolean;
}

const refused: { key: keyof ResumeCommandOptions; option: string; why: string }[] = [
  { key: 'seed', option: '--seed', why: 'it continues with its stored seed and RNG state' },
  { key: 'set', option: '--set', why: 'it continues with its stored config' },
  {
    key: 'workers',
    option: '--workers',
    why: 'it continues with its stored policy.workers (sampling depends on the worker count)',
  },
  { key: 'name', option: '--name', why: 'it keeps its directory' },
  { key: 'overwrite', option: '--overwrite', why: 'resuming never replaces a run' },
];

/** Throws a UserError naming the first option that --resume cannot honour. */
export function refuseIgnoredResumeOptions(command: string, options: ResumeCommandOptions): void {
  if (options.resume === undefined) return;
  for (const { key, option, why } of refused) {
    const value = options[key];
    if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    throw new UserError(
      `${command} --resume cannot take ${option}: ${why}; drop ${option} (only --steps may change a resumed run), or start a new run with --config`,
    );
  }
}

/** The total steps a resumed run will reach, for the progress bar (0 when unknown). */
export function resumedTotalSteps(dir: string, steps: number | undefined): number {
  if (steps !== undefined) return steps;
  const stored = RunStore.readConfig(dir) as { train?: { steps?: unknown } };
  return Number(stored?.train?.steps) || 0;
}
