// Run names and run directories. A run name is letters, digits, `_`, `-` and `.`, not starting with a dot,
// so it is never `.`, `..`, a hidden name or a path: `<runsDir>/<name>` always lies directly inside the
// runs directory, and an overwrite (which deletes the run directory) cannot reach anything else.
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';

/** Letters, digits, `_`, `-` and `.`, not starting with a dot: never `.`, `..` or a hidden name. */
export const RUN_NAME_PATTERN = /^[A-Za-z0-9_][\w.-]*$/;
export const RUN_NAME_RULE = 'use letters, digits, dot, dash or underscore, not starting with a dot';

/** Throws a ConfigError unless `name` is a valid run name. */
export function checkRunName(name: string): void {
  if (!RUN_NAME_PATTERN.test(name)) {
    throw new ConfigError(`run name ${JSON.stringify(name)} is not allowed: ${RUN_NAME_RULE}`);
  }
}

/** `<runsDir>/<name>`, resolved; the name is checked, so the result lies directly inside runsDir. */
export function runDirectory(runsDir: string, name: string): string {
  checkRunName(name);
  const root = resolve(runsDir);
  const dir = resolve(root, name);
  if (dirname(dir) !== root) {
    throw new ConfigError(`run name ${JSON.stringify(name)} does not name a directory inside ${root}`);
  }
  return dir;
}
