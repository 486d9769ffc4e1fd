// `curricula serve --openai --port 0` as a user runs it: a child process prints `listening on URL`,
// answers a completion, and exits 0 on SIGTERM.
import { expect, it } from 'vitest';
import { startServe } from './helpers.ts';

it('serves a completion and exits 0 on SIGTERM', async () => {
  const server = await startServe(['--openai', '--checkpoint', 'examples/checkpoints/demo-cold']);
  try {
    const response = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-cold', prompt: 'Add: 1+2=', max_tokens: 3, seed: 1 }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ text: string }> };
    expect(body.choices).toHaveLength(1);
  } finally {
    expect(await server.stop()).toBe(0);
  }
});
