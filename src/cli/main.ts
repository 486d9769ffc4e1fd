// The `curricula` command line: parse arguments, call the library, print. Each command lives in
// src/cli/commands/<name>.ts and exports `register(program)`; commands/index.ts lists them by group.
import { Command } from 'commander';
import { UserError } from '../core/errors.ts';
import { commandGroups } from './commands/index.ts';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('curricula')
    .description('Reinforcement fine-tuning lab for reasoning language models')
    .option('--debug', 'print stack traces on errors')
    .showHelpAfterError('(run with --help for usage)')
    // Before registering: subcommands copy this setting when they are created.
    .exitOverride();
  for (const group of commandGroups) {
    // Commands added from here on are listed under this heading.
    program.commandsGroup(group.heading);
    for (const register of group.commands) register(program);
  }
  // `help [command]` goes with demo; left alone, commander would put it in whichever group came last.
  program.commandsGroup(commandGroups[0].heading).helpCommand(true);
  program.addHelpText('after', startHere);
  return program;
}

// Only on `curricula --help`, not on each command's. `npx curricula` runs the checkout's own bin.
const startHere = `
Start here:
  npm start (or npx curricula demo)        the demo, a few minutes
  npx curricula dashboard --runs-dir runs  then watch it in a browser
  npx curricula <command> --help           a command's options`;

/**
 * A reader that goes away (`curricula --help | head -3`) ends the command quietly instead of with an
 * EPIPE stack trace: nothing more can reach it. Any other failure to write stdout (a full disk) is one line.
 */
function handleStdoutErrors(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    console.error(`error: cannot write to standard output: ${error.message}`);
    process.exit(1);
  });
}

export async function main(argv: string[]): Promise<void> {
  handleStdoutErrors();
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    const debug = argv.includes('--debug');
    const code = (error as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('commander.')) {
      // commander already printed the message (or help/version).
      const helpCodes = ['commander.helpDisplayed', 'commander.help', 'commander.version'];
      process.exitCode = helpCodes.includes(code) ? 0 : 2;
      return;
    }
    if (error instanceof UserError) {
      console.error(`error: ${error.message}`);
      if (debug) console.error(error.stack);
      process.exitCode = 2;
      return;
    }
    console.error(
      debug ? (error as Error).stack : `error: ${(error as Error).message} (run with --debug for the stack)`,
    );
    process.exitCode = 1;
  }
}
