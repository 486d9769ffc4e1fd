// `curricula serve --tinker` saves model state per step only where a restart can find it: with --state-dir
// (or --durable), not in a fresh temp dir, and not with --no-durable. Checked as a user runs it: a child
// process, a model created over HTTP, and the state directory looked at afterwards.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestTinkerClient } from '../src/testing/server/tinker/test-client.ts';
import { startServe, tempDir } from './helpers.ts';

/**
 * Starts serve --tinker with `extra`, creates one model, stops the server; its stderr, the model id, its
 * state directory and whether the model had a durable copy there while the server ran.
 */
async function serveAndCreateModel(
  extra: string[],
): Promise<{ stderr: string; modelId: string; stateDir: string; durable: boolean }> {
  const server = await startServe(['--tinker', '--checkpoint', 'examples/checkpoints/demo-cold', ...extra]);
  try {
    const modelId = await new TestTinkerClient(server.url, 'tml-unused').createModel('demo-cold');
    const stderr = server.stderr();
    const stateDir = /state in (\S+?);/.exec(stderr)![1];
    return { stderr, modelId, stateDir, durable: existsSync(join(stateDir, modelId, 'durable')) };
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
    expect(temporary.stderr).toContain('not saved per step');
    expect(temporary.durable).toBe(false);
  }, 60_000);

  it('removes the temporary state directory it made when stopped, and keeps one the user named', async () => {
    const temporary = await serveAndCreateModel([]);
    expect(existsSync(join(temporary.stateDir, temporary.modelId))).toBe(false);
    expect(existsSync(temporary.stateDir)).toBe(false);
    const named = tempDir('serve-kept');
    const kept = await serveAndCreateModel(['--state-dir', named]);
    expect(kept.stateDir).toBe(named);
    expect(existsSync(join(named, kept.modelId))).toBe(true);
  }, 60_000);
});
