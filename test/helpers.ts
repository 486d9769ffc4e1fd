// Helpers for end-to-end tests: run the real CLI in a child process, write configs to temp dirs.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
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

/** The one line a process prints when it runs on wasm because the addon is missing (native-kernels.ts). */
const nativeFallbackLine = /^curricula: native kernels unavailable, wasm matmul in use: .*\n?/gm;

/**
 * A child's stderr without the native-kernels fallback line: on a machine without the addon every command
 * that builds a model prints it, and a test of what else a command prints must hold on both machines.
 */
export function withoutNativeFallbackLine(stderr: string): string {
  return stderr.replace(nativeFallbackLine, '');
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `curricula <args>` to completion. Its stderr comes without the native-kernels fallback line (a
 * machine without the addon prints it at every start).
 */
export function runCli(args: string[], options: { cwd?: string; timeoutMs?: number } = {}): CliResult {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: withoutNativeFallbackLine(result.stderr ?? ''),
  };
}

/** Starts `curricula <args>` without waiting. */
export function startCli(args: string[], options: { cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd ?? repoRoot, stdio: 'ignore' });
}

export interface ServeChild {
  url: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `curricula serve --port 0 <args>` (no inherited API key) and waits for `listening on URL`. */
export async function startServe(args: string[]): Promise<ServeChild> {
  const { CURRICULA_API_KEY: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  try {
    const url = await new Promise<string>((found, failed) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const match = /^listening on (http:\/\/\S+)/.exec(line);
        if (match) found(match[1]);
      });
      child.on('exit', () => failed(new Error(`serve exited before listening: ${stderr}`)));
    });
    return { url, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
