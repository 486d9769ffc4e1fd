// The first screen: `curricula --help` lists every command once, one line each, under a heading that says
// what it is for, and ends with where to start; each command's own --help still works.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from './main.ts';

/** What `curricula <args>` prints on stdout, at 80 columns without colours. */
function helpOutput(args: string[]): string {
  const program = buildProgram();
  let out = '';
  const capture = (command: Command) => {
    command.configureOutput({
      writeOut: (text) => {
        out += text;
      },
      getOutHelpWidth: () => 80,
      getOutHasColors: () => false,
    });
    for (const sub of command.commands) capture(sub);
  };
  capture(program);
  expect(() => program.parse(['node', 'curricula', ...args])).toThrow(
    expect.objectContaining({ code: 'commander.helpDisplayed' }),
  );
  return out;
}

/** Heading → the lines under it, for `Heading:` lines at the start of a line. */
function sections(help: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of help.split('\n')) {
    if (/^[A-Z][\w ]*:$/.test(line)) {
      current = [];
      result.set(line, current);
    } else if (line.trim() !== '') current?.push(line);
  }
  return result;
}

const commandGroupHeadings = [
  'Get started:',
  'Train:',
  'Evaluate and inspect:',
  'Serve and connect:',
  'Benchmark and simulate:',
  'Config:',
];

describe('curricula --help', () => {
  const help = helpOutput(['--help']);
  const groups = sections(help);

  it('lists the commands under headings of what they are for, then where to start', () => {
    expect([...groups.keys()]).toEqual(['Options:', ...commandGroupHeadings, 'Start here:']);
    const names = (heading: string) => groups.get(heading)?.map((line) => line.trim().split(' ')[0]);
    expect(commandGroupHeadings.map(names)).toEqual([
      ['demo', 'help'],
      ['pretrain', 'train', 'teach', 'distill', 'train-rm', 'sweep'],
      ['eval', 'report', 'compare', 'plan', 'dashboard', 'reward'],
      ['serve', 'tinker-check'],
      ['bench', 'simulate'],
      ['schema', 'docs'],
    ]);
    expect(groups.get('Start here:')).toEqual([
      '  npm start (or npx curricula demo)        the demo, a few minutes',
      '  npx curricula dashboard --runs-dir runs  then watch it in a browser',
      "  npx curricula <command> --help           a command's options",
    ]);
  });

  it('lists every registered command exactly once, on one line', () => {
    const listed = commandGroupHeadings.flatMap((heading) => groups.get(heading) ?? []);
    // A wrapped description would continue on a line that starts with spaces only, then text.
    for (const line of listed) expect(line).toMatch(/^ {2}[a-z]/);
    const listedNames = listed.map((line) => line.trim().split(' ')[0]).sort();
    const registered = [...buildProgram().commands.map((command) => command.name()), 'help'].sort();
    expect(listedNames).toEqual(registered);
  });
});

describe("each command's --help", () => {
  const program = buildProgram();

  it.each(program.commands.map((command) => command.name()))('%s --help works', (name) => {
    const help = helpOutput([name, '--help']);
    expect(help).toMatch(new RegExp(`^Usage: curricula ${name} `));
    expect(help).not.toContain('Start here:');
  });

  it('every command and subcommand says what it is for, in one line of its parent list', () => {
    const walk = (command: Command, path: string[]): void => {
      for (const sub of command.commands) {
        const name = [...path, sub.name()].join(' ');
        expect(sub.description(), name).not.toBe('');
        if (sub.commands.length > 0) {
          const listed = sections(helpOutput([...path, sub.name(), '--help'])).get('Commands:') ?? [];
          for (const line of listed) expect(line, `${name} --help`).toMatch(/^ {2}[a-z]/);
        }
        walk(sub, [...path, sub.name()]);
      }
    };
    walk(program, []);
  });
});
