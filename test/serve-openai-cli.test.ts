// `curricula serve --openai --port 0` as a user runs it: a child process prints `listening on URL`,
// answers a completion, and exits 0 on SIGTERM.
import { expect, it } from 'vitest';
import { runCli, startServe } from './helpers.ts';

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

it('--policy fronts another server: chat over token ids, the same tokens as asking that server directly', async () => {
  const engine = await startServe(['--openai', '--checkpoint', 'examples/checkpoints/demo-cold']);
  try {
    const front = await startServe([
      '--openai',
      '--policy',
      `openai:${engine.url}#demo-cold`,
      '--tokenizer',
      'examples/checkpoints/demo-cold',
    ]);
    try {
      const ask = async (url: string, extra: object = {}) => {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            messages: [{ role: 'user', content: 'Add: 12+7=' }],
            max_tokens: 6,
            temperature: 0,
            return_token_ids: true,
            ...extra,
          }),
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const direct = await ask(engine.url);
      const fronted = await ask(front.url);
      expect(fronted.status).toBe(200);
      expect(fronted.body.model).toBe('demo-cold');
      expect(fronted.body.prompt_token_ids).toEqual(direct.body.prompt_token_ids);
      expect(fronted.body.choices[0].token_ids).toEqual(direct.body.choices[0].token_ids);
      // The embedded char tokenizer has no chat template: tools are refused, saying why.
      const tools = [{ type: 'function', function: { name: 'calc', parameters: {} } }];
      const refused = await ask(front.url, { tools });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/no chat template/);
    } finally {
      expect(await front.stop()).toBe(0);
    }
  } finally {
    expect(await engine.stop()).toBe(0);
  }
}, 60_000);

it('eval --prompt-format messages drives the chat API; a server that refuses tools ends each episode with its reason', async () => {
  const server = await startServe(['--openai', '--checkpoint', 'examples/checkpoints/demo-cold']);
  try {
    const spec = `openai:${server.url}#demo-cold`;
    const common = [
      'eval',
      '--policy',
      spec,
      '--prompt-format',
      'messages',
      '--tasks',
      'addition:1',
      '--problems',
      '2',
    ];
    const noEnvironment = runCli([...common, '--tools', 'none', '--quiet']);
    expect(noEnvironment.status).toBe(2);
    expect(noEnvironment.stderr).toMatch(/eval over a chat API runs every sample in an environment/);
    // The embedded model has no chat template, so the server answers tools with a 400: counted per episode.
    const refused = runCli([...common, '--tools', 'calc', '--json', '--quiet']);
    expect(refused.status).toBe(0);
    const tools = JSON.parse(refused.stdout).summary.overall.tools;
    expect(tools.errors.environment).toBe(2);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);
