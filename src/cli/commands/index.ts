// Every CLI command, in the order `curricula --help` lists them. Add one import and one entry per command.
import type { Command } from 'commander';

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [];
