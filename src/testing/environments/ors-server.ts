// Test support: starts the stdlib-only toy ORS server (ors_toy_server.py, /usr/bin/python3) on a free
// port, waits for its ready line, and stops it. Its modes (the file's docstring) are base URLs
// `${url}/fault/<mode>`.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./ors_toy_server.py', import.meta.url));

/** A running toy server: its base URL and how to stop it. */
export interface ToyOrsServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts the toy server; rejects when it does not print its ready line within `timeoutMs`. */
export function startToyOrsServer(timeoutMs = 10_000): Promise<ToyOrsServer> {
  const child: ChildProcess = spawn('/usr/bin/python3', ['-u', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin' },
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the toy ORS server did not start within ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.stderr?.on('data', (data: Buffer) => {
      err += data.toString();
    });
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      const match = /ORS_READY (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${match[1]}`, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the toy ORS server exited (${code}): ${err}`));
    });
  });
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
