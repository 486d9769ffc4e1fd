// Run names in URLs → run directories, checked to lie directly inside the runs directory before anything
// is read. A name must be a valid run name (run-name.ts: letters, digits, `_`, `-`, `.`, not starting with a
// dot), so `..`, `/`, a decoded `%2F` or `%2e%2e` and hidden names are refused; then the run directory and
// the runs directory are both resolved through symlinks (realpath) and the run's real parent must be the
// runs directory's real path, so a symlink `runs/evil -> /etc` is refused too.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { RUN_NAME_PATTERN, RUN_NAME_RULE } from '../runs/run-name.ts';
import { DashboardError } from './errors.ts';

/** The real path of the runs directory (a missing one is a clear error, not an empty list). */
export function realRunsDir(runsDir: string): string {
  const path = resolve(runsDir);
  if (!existsSync(path)) throw new DashboardError(400, `runs directory ${path} does not exist`);
  return realpathSync(path);
}

/** `<runsDir>/<name>`, real path, checked to lie directly inside the (real) runs directory. */
export function resolveRunDir(realRoot: string, name: string): string {
  if (!RUN_NAME_PATTERN.test(name)) {
    throw new DashboardError(400, `run name ${JSON.stringify(name)} is not allowed: ${RUN_NAME_RULE}`);
  }
  const candidate = resolve(realRoot, name);
  if (dirname(candidate) !== realRoot) {
    throw new DashboardError(
      400,
      `run name ${JSON.stringify(name)} does not name a directory inside the runs directory`,
    );
  }
  if (!existsSync(candidate)) throw new DashboardError(404, `no run named ${JSON.stringify(name)}`);
  const real = realpathSync(candidate);
  if (dirname(real) !== realRoot) {
    throw new DashboardError(
      400,
      `run ${JSON.stringify(name)} is a link to a directory outside the runs directory; refused`,
    );
  }
  return real;
}
