// What `curricula serve --tinker` restores from its state directory at start (durable-store.ts,
// durability.ts), and what it refuses: a version left half-written by a kill (.tmp-<n>, never renamed) is
// never loaded; a version whose files do not match its manifest (flipped bytes) or whose durable.json is cut
// off is skipped with a log line and the previous version is used; with no usable version the model is
// not restored (log line) and the server still starts and answers with JSON errors.
import { cpSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TinkerPolicyBackend } from '../../backends/tinker/client/backend.ts';
import type { Datum } from '../../core/policy.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import {
  apiKey,
  checkpoint,
  clientOptions,
  startTinkerServer,
} from '../../testing/backends/tinker/client/test-server.ts';
import { durableVersions, readDurableVersion } from './durable-store.ts';

type Server = Awaited<ReturnType<typeof startTinkerServer>>;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.app.close();
});

const data: Datum[] = [{ tokens: [1, 40, 41, 42, 43, 44, 45], weights: [0, 0.5, -1, 0.25, -0.75, 1] }];

async function start(stateDir?: string) {
  const log: string[] = [];
  const server = await startTinkerServer(0, { stateDir, log: (line) => log.push(line) });
  servers.push(server);
  return { ...server, log };
}

async function post(url: string, path: string, body: unknown) {
  const response = await fetch(`${url}/api/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const optimizerSteps = async (url: string, modelId: string) =>
  (await post(url, 'get_info', { model_id: modelId })).body.optimizer_steps;

describe('durable state of curricula serve --tinker', () => {
  it('restores the newest valid version; skips half-written and corrupt ones with a log line; never crashes', async () => {
    const first = await start();
    const local = await EmbeddedBackend.load(checkpoint);
    const backend = await TinkerPolicyBackend.connect(clientOptions(first.url), {
      tokenizer: local.tokenizer,
    });
    local.dispose();
    for (let step = 0; step < 2; step++) {
      await backend.forwardBackward(data, 'linear');
      await backend.optimStep({ learningRate: 0.01 });
    }
    await backend.close();
    const modelId = backend.modelId;
    const root = join(first.stateDir, modelId, 'durable');
    // create_model wrote v-1 (base weights), each step one more; the two newest are kept.
    expect(durableVersions(root).map((dir) => dir.slice(root.length + 1))).toEqual(['v-3', 'v-2']);
    expect(readDurableVersion(join(root, 'v-3')).optimizerSteps).toBe(2);
    await first.app.close();
    servers.splice(0);

    // A kill during the write of step 3 leaves .tmp-4 (here complete-looking, claiming 9 steps): ignored.
    cpSync(join(root, 'v-3'), join(root, '.tmp-4'), { recursive: true });
    const meta = JSON.parse(readFileSync(join(root, '.tmp-4', 'durable.json'), 'utf8'));
    writeFileSync(join(root, '.tmp-4', 'durable.json'), JSON.stringify({ ...meta, optimizerSteps: 9 }));
    const second = await start(first.stateDir);
    expect(await optimizerSteps(second.url, modelId)).toBe(2);
    expect(second.log).toEqual([`tinker: restored model ${modelId} (2 optimizer steps, last seq_id 4)`]);
    await second.app.close();
    servers.splice(0);

    // Flipped bytes in v-3's weights (same size): v-3 is refused, v-2 (1 step) is used.
    const weights = join(root, 'v-3', 'checkpoint', 'model.safetensors');
    const bytes = readFileSync(weights);
    for (let i = bytes.length - 64; i < bytes.length; i++) bytes[i] ^= 0xff;
    writeFileSync(weights, bytes);
    const third = await start(first.stateDir);
    expect(await optimizerSteps(third.url, modelId)).toBe(1);
    expect(third.log[0]).toMatch(
      /ignoring durable state .*v-3 .*model\.safetensors does not match its sha256/,
    );
    await third.app.close();
    servers.splice(0);

    // v-2's durable.json cut in half as well: no usable version; the model is not restored, the server
    // starts and answers a JSON 404 for it, and a new model can be made.
    truncateSync(join(root, 'v-2', 'durable.json'), 40);
    const fourth = await start(first.stateDir);
    expect(fourth.log.join('\n')).toMatch(/ignoring durable state .*v-2 .*durable\.json is unreadable/);
    expect(fourth.log.at(-1)).toMatch(new RegExp(`model ${modelId} not restored: no usable durable state`));
    const missing = await post(fourth.url, 'get_info', { model_id: modelId });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain(`unknown model_id '${modelId}'`);
    const other = await TinkerPolicyBackend.connect(clientOptions(fourth.url), {
      tokenizer: backend.tokenizer,
    });
    expect(await optimizerSteps(fourth.url, other.modelId)).toBe(0);
    await other.close();
  }, 60_000);
});
