// `curricula serve --openai --port 0` as a user runs it: a child process prints `listening on URL`,
// answers a completion, and exits 0 on SIGTERM.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { cliPath, repoRoot } from './helpers.ts';

it('serves a completion and exits 0 on SIGTERM', async () => {
  const { CURRICULA_API_KEY: _ignored, ...env } = process.env;
  const child = spawn(
    process.execPath,
    [cliPath, 'serve', '--openai', '--port', '0', '--checkpoint', 'examples/checkpoints/demo-cold'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  try {
    const lines = createInterface({ input: child.stdout });
    const url = await new Promise<string>((found, failed) => {
      lines.on('line', (line) => {
        const match = /^listening on (http:\/\/\S+)/.exec(line);
        if (match) found(match[1]);
      });
      child.on('exit', () => failed(new Error(`serve exited before listening: ${stderr}`)));
    });
    const response = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-cold', prompt: 'Add: 1+2=', max_tokens: 3, seed: 1 }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ text: string }> };
    expect(body.choices).toHaveLength(1);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
});
