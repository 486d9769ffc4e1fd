// `curricula serve --tinker` saves model state per step only where a restart can find it: with --state-dir
// (or --durable), not in a fresh temp dir, and not with --no-durable. Checked as a user runs it: a child
// process, a model created over HTTP, and the state directory looked at afterwards.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestTinkerClient } from '../src/testing/server/tinker/test-client.ts';
import { startServe, tempDir } from './helpers.ts';

/** Starts serve --tinker with `extra`, creates one model, stops the server; its stderr and the model id. */
async function serveAndCreateModel(extra: string[]): Promise<{ stderr: string; modelId: string }> {
  const server = await startServe(['--tinker', '--checkpoint', 'examples/checkpoints/demo-cold', ...extra]);
  try {
    const modelId = await new TestTinkerClient(server.url, 'tml-unused').createModel('demo-cold');
    return { stderr: server.stderr(), modelId };
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe('curricula serve --tinker: per-step durability', () => {
  it('is on with --state-dir, off with --no-durable, and off in the default temp dir', async () => {
    const named = tempDir('serve-durable');
    const on = await serveAndCreateModel(['--state-dir', named]);
    expect(on.stderr).toContain('model state saved at every optim_step');
    expect(readdirSync(join(named, on.modelId, 'durable')).some((entry) => /^v-\d+$/.test(entry))).toBe(true);

    const skipped = tempDir('serve-durable');
    const off = await serveAndCreateModel(['--state-dir', skipped, '--no-durable']);
    expect(off.stderr).toContain('not saved per step');
    expect(existsSync(join(skipped, off.modelId, 'durable'))).toBe(false);

    const temporary = await serveAndCreateModel([]);
    const stateDir = /state in (\S+?);/.exec(temporary.stderr)![1];
    expect(temporary.stderr).toContain('not saved per step');
    expect(existsSync(join(stateDir, temporary.modelId, 'durable'))).toBe(false);
  }, 60_000);
});
