// What `curricula demo` prints after its table: where to look, what to change and how to run it again,
// as commands to paste into a shell (the comments between them are shell comments). `npx curricula`
// runs the checkout's own bin, and an installed package's.
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

export interface DemoNextStepsInput {
  /** The demo's --runs-dir and --name; paths as `fromHere` shows them. */
  runsDir: string;
  name: string;
  runDir: string;
  /** The RL stage's config file. */
  trainConfig: string;
  /** Only when the config's own init.checkpoint would not find the demo's cold start from here
   *  (the demo pretrained one, or ran outside the package directory). */
  coldStart?: string;
}

export function demoNextSteps(run: DemoNextStepsInput): string[] {
  const other = `${run.name}-sec`;
  const train = [
    `npx curricula train --config ${shellWord(run.trainConfig)}`,
    ...(run.coldStart ? [`--set init.checkpoint=${shellWord(run.coldStart)}`] : []),
    `--set runsDir=${shellWord(run.runsDir)} --name ${shellWord(other)} --set selector.name=sec`,
  ].join(' ');
  return [
    'next steps:',
    "  # watch this run's curves and samples in a browser",
    `  npx curricula dashboard --runs-dir ${shellWord(run.runsDir)}`,
    `  # RL again from the same cold start with another task selector (or edit ${run.trainConfig})`,
    `  ${train}`,
    '  # then the two side by side',
    `  npx curricula compare ${shellWord(run.runDir)} ${shellWord(join(run.runsDir, other))}`,
    `  # the whole demo again, e.g. with --seed 2 (replaces ${run.runDir})`,
    `  npx curricula demo --runs-dir ${shellWord(run.runsDir)} --name ${shellWord(run.name)}`,
  ];
}

/** A path as typed from `cwd`: relative inside it, absolute outside (`../../tmp/x` reads worse than `/tmp/x`). */
export function fromHere(path: string, cwd = process.cwd()): string {
  const fromCwd = relative(cwd, resolve(cwd, path));
  if (fromCwd === '') return '.';
  const outside = fromCwd === '..' || fromCwd.startsWith(`..${sep}`) || isAbsolute(fromCwd);
  return outside ? resolve(cwd, path) : fromCwd;
}

/** Quoted for a POSIX shell only when it has to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
