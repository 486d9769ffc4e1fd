// Helpers for end-to-end tests: run the real CLI in a child process, write configs to temp dirs.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';

export const repoRoot = resolve(import.meta.dirname, '..');
export const cliPath = join(repoRoot, 'bin/curricula.mjs');

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `curricula-${prefix}-`));
}

export function writeYaml(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, stringify(value));
  return path;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `curricula <args>` to completion. */
export function runCli(args: string[], options: { cwd?: string; timeoutMs?: number } = {}): CliResult {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts `curricula <args>` without waiting. */
export function startCli(args: string[], options: { cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd ?? repoRoot, stdio: 'ignore' });
}
