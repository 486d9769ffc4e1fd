// `curricula serve --tinker` saves model state per step only where a restart can find it: with --state-dir
// (or --durable), not in a fresh temp dir, and not with --no-durable. Checked as a user runs it: a child
// process, a model created over HTTP, and the state directory looked at afterwards.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { TestTinkerClient } from '../src/server/tinker/test-client.ts';
import { cliPath, repoRoot, tempDir } from './helpers.ts';

/** Starts serve with `extra`, creates one model, stops the server; its stderr and the model id. */
async function serveAndCreateModel(extra: string[]): Promise<{ stderr: string; modelId: string }> {
  const { CURRICULA_API_KEY: _ignored, ...env } = process.env;
  const child = spawn(
    process.execPath,
    [cliPath, 'serve', '--tinker', '--port', '0', '--checkpoint', 'examples/checkpoints/demo-cold', ...extra],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  try {
    const url = await new Promise<string>((found, failed) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const match = /^listening on (http:\/\/\S+)/.exec(line);
        if (match) found(match[1]);
      });
      child.on('exit', () => failed(new Error(`serve exited before listening: ${stderr}`)));
    });
    const client = new TestTinkerClient(url, 'tml-unused');
    const session = await client.json('create_session', {
      tags: [],
      user_metadata: {},
      sdk_version: '0.25.0',
    });
    const created = await client.call('create_model', {
      session_id: session.session_id,
      model_seq_id: 0,
      base_model: 'demo-cold',
      lora_config: { rank: 8 },
    });
    return { stderr, modelId: created.model_id };
  } finally {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
}

describe('curricula serve --tinker: per-step durability', () => {
  it('is on with --state-dir, off with --no-durable, and off in the default temp dir', async () => {
    const named = tempDir('curricula-serve-durable-');
    const on = await serveAndCreateModel(['--state-dir', named]);
    expect(on.stderr).toContain('model state saved at every optim_step');
    expect(readdirSync(join(named, on.modelId, 'durable')).some((entry) => /^v-\d+$/.test(entry))).toBe(true);

    const skipped = tempDir('curricula-serve-durable-');
    const off = await serveAndCreateModel(['--state-dir', skipped, '--no-durable']);
    expect(off.stderr).toContain('not saved per step');
    expect(existsSync(join(skipped, off.modelId, 'durable'))).toBe(false);

    const temporary = await serveAndCreateModel([]);
    const stateDir = /state in (\S+?);/.exec(temporary.stderr)![1];
    expect(temporary.stderr).toContain('not saved per step');
    expect(existsSync(join(stateDir, temporary.modelId, 'durable'))).toBe(false);
  }, 60_000);
});
