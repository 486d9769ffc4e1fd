// `curricula serve` as a child process for benchmarks: what a remote engine is to the client — its own
// process (its own event loop and, on this machine, its own core), reached over loopback. Started with
// --port 0; the URL is read from its first stdout line (`listening on http://HOST:PORT`).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const cliPath = join(import.meta.dirname, '../../bin/curricula.mjs');

export interface ServeProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts `curricula serve <args> --port 0`; rejects with its output if it exits before listening. */
export async function startServeProcess(args: readonly string[], timeoutMs = 60_000): Promise<ServeProcess> {
  const env = { ...process.env };
  delete env.CURRICULA_API_KEY;
  const child = spawn(process.execPath, [cliPath, 'serve', ...args, '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`curricula serve did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`curricula serve exited (${code}) before listening:\n${output}`));
    });
  });
  return { url, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
