// Parses task lists given on the command line: comma-separated items `task[:levels]`, where levels are
// "N" or "N-M" parts joined by '+', and a bare task name means all of its difficulties.
// Examples: "addition:1-4", "addition:1-2+6,modular-chain:2", "countdown".
// A spec that selects nothing (empty, a reversed range such as 4-1) or a level outside the task's range
// is refused with one line, so `eval` never reports on an empty or silently shortened set.
import { ConfigError } from '../core/errors.ts';
import { tasks } from '../tasks/index.ts';
import type { MixEntry } from '../tasks/problem-mix.ts';

export function parseTaskSpec(spec: string): MixEntry[] {
  const entries = spec
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map((item) => {
      const [name, levels] = item.split(':');
      const task = tasks.get(name);
      const { min, max } = task.difficulty;
      if (levels === undefined) {
        const all = [];
        for (let d = min; d <= max; d++) all.push(d);
        return { task: name, difficulties: all, weight: 1 };
      }
      const difficulties = new Set<number>();
      for (const part of levels.split('+')) {
        const match = /^(\d+)(?:-(\d+))?$/.exec(part);
        if (!match)
          throw new ConfigError(
            `--tasks: cannot read difficulties '${levels}' of ${name}; use e.g. ${name}:${min}-${max}`,
          );
        const from = Number(match[1]);
        const to = match[2] === undefined ? from : Number(match[2]);
        if (from > to) {
          throw new ConfigError(
            `--tasks: ${name}:${part} is a reversed range and selects nothing; write ${name}:${to}-${from}`,
          );
        }
        if (from < min || to > max) {
          throw new ConfigError(
            `--tasks: ${name}:${part} is outside ${name}'s difficulties ${min}-${max} (${task.difficulty.meaning})`,
          );
        }
        for (let d = from; d <= to; d++) difficulties.add(d);
      }
      return { task: name, difficulties: [...difficulties].sort((a, b) => a - b), weight: 1 };
    });
  if (entries.length === 0) {
    throw new ConfigError(`--tasks '${spec}' selects no task; give e.g. --tasks addition:1-4`);
  }
  return entries;
}
