// The line of a run report that says how to see the same run live in `curricula dashboard`
// (docs/dashboard.md): the dashboard serves one runs directory, the run's parent, and addresses a run's
// view as `#/run/<name>` (src/dashboard/web/app.js, name URI-encoded). No server is started here: the
// report only prints the command and the URL the dashboard will serve on its default host and port.
import { basename, dirname, resolve } from 'node:path';
import { RUN_NAME_PATTERN } from '../run-name.ts';

/** The dashboard's defaults (src/cli/commands/dashboard.ts). */
export const DASHBOARD_DEFAULT_URL = 'http://127.0.0.1:8050/';

export interface DashboardLink {
  /** The shell command that serves the run's parent directory. */
  command: string;
  /** The run's view once that command runs with its default host and port. */
  url: string;
}

/** The dashboard command and URL of a run directory, or undefined when its name is not a run name. */
export function dashboardLink(runDir: string): DashboardLink | undefined {
  const dir = resolve(runDir);
  const name = basename(dir);
  // The dashboard refuses names outside the run-name rule (src/dashboard/run-path.ts).
  if (!RUN_NAME_PATTERN.test(name)) return undefined;
  return {
    command: `curricula dashboard --runs-dir ${shellQuote(dirname(dir))}`,
    url: `${DASHBOARD_DEFAULT_URL}#/run/${encodeURIComponent(name)}`,
  };
}

/** The report's line under its title: the command and the URL, or why the dashboard cannot show this run. */
export function dashboardSection(runDir: string): string {
  const link = dashboardLink(runDir);
  if (!link) {
    return `_The dashboard cannot open this run: its directory name ${JSON.stringify(basename(resolve(runDir)))} is not a valid run name._`;
  }
  return `Live view: \`${link.command}\`, then open ${link.url} (with \`--port N\`, that port instead of 8050).`;
}

/** A path as one shell word: unchanged when it is plain, else single-quoted. */
function shellQuote(path: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
