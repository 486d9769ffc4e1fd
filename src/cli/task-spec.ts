// Parses task lists given on the command line: comma-separated items `task[:levels]`, where levels are
// "N" or "N-M" parts joined by '+', and a bare task name means all of its difficulties.
// Examples: "addition:1-4", "addition:1-2+6,modular-chain:2", "countdown".
import { ConfigError } from '../core/errors.ts';
import { tasks } from '../tasks/index.ts';
import type { MixEntry } from '../training/problem-mix.ts';

export function parseTaskSpec(spec: string): MixEntry[] {
  return spec
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map((item) => {
      const [name, levels] = item.split(':');
      const task = tasks.get(name);
      if (levels === undefined) {
        const all = [];
        for (let d = task.difficulty.min; d <= task.difficulty.max; d++) all.push(d);
        return { task: name, difficulties: all, weight: 1 };
      }
      const difficulties: number[] = [];
      for (const part of levels.split('+')) {
        const match = /^(\d+)(?:-(\d+))?$/.exec(part);
        if (!match)
          throw new ConfigError(
            `--tasks: cannot read difficulties '${levels}' of ${name}; use e.g. ${name}:1-4`,
          );
        const from = Number(match[1]);
        const to = match[2] === undefined ? from : Number(match[2]);
        for (let d = from; d <= to; d++) difficulties.push(d);
      }
      return { task: name, difficulties, weight: 1 };
    });
}
