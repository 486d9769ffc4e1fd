// The runs of a sweep (`curricula sweep`): every combination of the grid's values × every seed, each a
// `curricula train` run of one config with `--set` overrides. Pure: the names and overrides only.
import { UserError } from '../../core/errors.ts';
import { shortInput } from '../../core/quote-input.ts';
import { RUN_NAME_MAX, RUN_NAME_PATTERN } from '../../runs/run-name.ts';

/** One axis of the grid: a config key and the values it takes (YAML text, as `--set` parses it). */
export interface GridAxis {
  key: string;
  values: string[];
}

export interface SweepRun {
  /** Run name: the values of the grid, then `-s<seed>` (e.g. `sec-4-s2`). */
  name: string;
  /** `key=value` overrides, in grid order. */
  sets: string[];
  seed: number;
}

/** `key=v1,v2,…` (a `--grid` argument) → an axis. */
export function parseGridAxis(text: string): GridAxis {
  const equals = text.indexOf('=');
  const key = equals > 0 ? text.slice(0, equals).trim() : '';
  const values =
    equals > 0
      ? text
          .slice(equals + 1)
          .split(',')
          .map((value) => value.trim())
      : [];
  if (
    !/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/.test(key) ||
    values.length === 0 ||
    values.some((v) => v === '')
  ) {
    throw new UserError(
      `--grid '${shortInput(text)}': give key=value1,value2,… (a config key such as selector.name, then values)`,
    );
  }
  if (['name', 'seed', 'runsDir'].includes(key)) {
    throw new UserError(
      `--grid '${shortInput(text)}': the sweep sets ${key} itself (use --seeds for seeds, --out for the directory)`,
    );
  }
  if (new Set(values).size !== values.length)
    throw new UserError(`--grid '${shortInput(text)}': a value is given twice`);
  return { key, values };
}

/** A value as a piece of a run name: letters, digits, dot and dash. */
function slug(value: string): string {
  return value.replace(/[^A-Za-z0-9.]+/g, '-').replace(/^[-.]+|-+$/g, '') || 'x';
}

/** Every grid combination × seed, in order (grid axes outer to inner, then seeds). */
export function sweepRuns(grid: readonly GridAxis[], seeds: readonly number[], prefix = ''): SweepRun[] {
  const keys = grid.map((axis) => axis.key);
  if (new Set(keys).size !== keys.length) throw new UserError('--grid: a key is given twice');
  if (seeds.length === 0) throw new UserError('--seeds: give at least one seed');
  let combinations: string[][] = [[]];
  for (const axis of grid) {
    combinations = combinations.flatMap((combination) => axis.values.map((value) => [...combination, value]));
  }
  const runs = combinations.flatMap((values) =>
    seeds.map((seed) => {
      const parts = [prefix, ...values.map(slug)].filter((part) => part !== '');
      const name = `${parts.length > 0 ? `${parts.join('-')}-` : ''}s${seed}`;
      return { name, sets: values.map((value, index) => `${keys[index]}=${value}`), seed };
    }),
  );
  const names = new Set<string>();
  for (const run of runs) {
    if (!RUN_NAME_PATTERN.test(run.name) || run.name.length > RUN_NAME_MAX) {
      throw new UserError(
        `sweep: run name '${run.name}' is not a valid run name (give --prefix or simpler values)`,
      );
    }
    if (names.has(run.name)) {
      throw new UserError(
        `sweep: two runs would be named '${run.name}' (values that differ only in punctuation); rename a value`,
      );
    }
    names.add(run.name);
  }
  return runs;
}
