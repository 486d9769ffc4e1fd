// Run names and run directories. A run name is letters, digits, `_`, `-` and `.`, not starting with a dot,
// so it is never `.`, `..`, a hidden name or a path: `<runsDir>/<name>` always lies directly inside the
// runs directory, and an overwrite (which deletes the run directory) cannot reach anything else. It is at
// most RUN_NAME_MAX characters: a file name may be 255 bytes and the staging and removal names of
// run-staging.ts add about 40 to it.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { quoteInput } from '../core/quote-input.ts';

/** Letters, digits, `_`, `-` and `.`, not starting with a dot: never `.`, `..` or a hidden name. */
export const RUN_NAME_PATTERN = /^[A-Za-z0-9_][\w.-]*$/;
/** The longest run name (characters). */
export const RUN_NAME_MAX = 128;
export const RUN_NAME_RULE = `use letters, digits, dot, dash or underscore, not starting with a dot, at most ${RUN_NAME_MAX} characters`;

/** Throws a ConfigError unless `name` is a valid run name. */
export function checkRunName(name: string): void {
  if (name.length > RUN_NAME_MAX || !RUN_NAME_PATTERN.test(name)) {
    throw new ConfigError(`run name ${quoteInput(name)} is not allowed: ${RUN_NAME_RULE}`);
  }
}

/** `<runsDir>/<name>`, resolved; the name is checked, so the result lies directly inside runsDir. */
export function runDirectory(runsDir: string, name: string): string {
  checkRunName(name);
  const root = resolve(runsDir);
  const dir = resolve(root, name);
  if (dirname(dir) !== root) {
    throw new ConfigError(`run name ${quoteInput(name)} does not name a directory inside ${root}`);
  }
  return dir;
}

/**
 * Refuses a runs directory that exists and is not a directory (a file of that name), or that lies under
 * a file, before any run is set up: the alternative is a raw `EEXIST … mkdir` after the model is loaded.
 * A missing one is fine (it is created).
 */
export function checkRunsDirectory(runsDir: string, where = 'runsDir'): void {
  let path = resolve(runsDir);
  for (;;) {
    let isDirectory: boolean | null = null;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') {
        throw new ConfigError(`${where}: cannot use ${quoteInput(path)} as the runs directory (${code})`);
      }
    }
    if (isDirectory === true) return;
    if (isDirectory === false) {
      const what = path === resolve(runsDir) ? 'it is a file' : `${quoteInput(path)} above it is a file`;
      throw new ConfigError(
        `${where}: the runs directory ${quoteInput(resolve(runsDir))} cannot be used: ${what}, not a directory; choose another runs directory (runsDir, --runs-dir) or move the file away`,
      );
    }
    const parent = dirname(path);
    if (parent === path) return;
    path = parent;
  }
}
