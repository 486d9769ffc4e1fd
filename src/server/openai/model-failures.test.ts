// `curricula serve --openai` after a failure inside the model (issue 26, item 3): an injected failure
// that breaks the policy for good, a real out-of-bounds wasm allocation, a policy worker that exits, and
// a corrupted wasm heap each fail their request only; the next request is served (by a reloaded policy,
// new workers or a replaced backend where needed) with the same tokens as before.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { ParallelEmbeddedBackend } from '../../policy/parallel-backend.ts';
import { runtimeGeneration, tf, wasmRuntimeHealthy } from '../../policy/runtime.ts';
import { checkpoint, normal, post, prompt, serve } from '../../testing/server/openai/serve.ts';
import { buildServer } from '../app.ts';

describe('a failure inside the model does not poison the server', () => {
  it('injected: the policy breaks for good on one request; the next request is served by a reloaded one', async () => {
    // The trigger (n = 7) makes the policy fail and stay broken, as tfjs-wasm does after a heap overrun.
    const server = await serve({
      wrap: (policy) => {
        let broken = false;
        const sample = policy.sample.bind(policy);
        const forward = policy.forward.bind(policy);
        policy.sample = async (prompts, options) => {
          if (options.n === 7) broken = true;
          if (broken) throw new RangeError('memory access out of bounds');
          return sample(prompts, options);
        };
        // A second trigger in scoring (prompt_logprobs): token 97 in a prompt.
        policy.forward = async (sequences) => {
          if (sequences.some((sequence) => sequence.includes(97))) broken = true;
          if (broken) throw new RangeError('memory access out of bounds');
          return forward(sequences);
        };
        return policy;
      },
    });
    try {
      const expected = await post(server.url, '/v1/completions', normal);
      expect(expected.status).toBe(200);
      // With prompt_logprobs: the scoring of the failed request must not end the process either.
      const failed = await post(server.url, '/v1/completions', {
        prompt,
        n: 7,
        max_tokens: 2,
        prompt_logprobs: 1,
      });
      expect(failed.status).toBe(500);
      expect(failed.body.error.message).toMatch(/memory access out of bounds/);
      const after = await post(server.url, '/v1/completions', normal);
      expect(after.status).toBe(200);
      expect(after.body.choices).toEqual(expected.body.choices);
      expect(server.loads()).toBe(2);
      expect(server.app.openAiModels!.get('demo-cold').queue.stats.rebuilds).toBe(1);
      // Scoring fails while the sample is queued: a 500, and the process lives on.
      const scoring = await post(server.url, '/v1/completions', {
        prompt: [1, 97, 5],
        max_tokens: 2,
        prompt_logprobs: 1,
      });
      expect(scoring.status).toBe(500);
      const last = await post(server.url, '/v1/completions', normal);
      expect(last.status).toBe(200);
      expect(last.body.choices).toEqual(expected.body.choices);
      expect(server.loads()).toBe(3);
    } finally {
      await server.app.close();
    }
  });

  it('real: a tensor past the 4 GiB wasm heap fails that request only; the next gets the same tokens as before', async () => {
    // On the trigger the policy asks tfjs-wasm for a 4 GiB + 128 KiB tensor (a broadcast of two small
    // ones, computed by a stock wasm kernel): unguarded, malloc takes the size modulo 2^32 (128 KiB) and
    // the kernel writes on past the end of the heap ("memory access out of bounds"), over the weights and
    // the allocator's state. Guarded (runtime.ts), it is a WasmHeapError and nothing is written.
    const server = await serve({
      wrap: (policy) => {
        const sample = policy.sample.bind(policy);
        policy.sample = async (prompts, options) => {
          if (options.n === 7) {
            tf.tidy(() =>
              tf.maximum(tf.zeros([32_768, 1], 'int32'), tf.zeros([1, 32_769], 'int32')).dataSync(),
            );
          }
          return sample(prompts, options);
        };
        return policy;
      },
    });
    try {
      const expected = await post(server.url, '/v1/completions', normal);
      expect(expected.status).toBe(200);
      const failed = await post(server.url, '/v1/completions', { prompt, n: 7, max_tokens: 2 });
      expect(failed.status).toBe(500);
      const after = await post(server.url, '/v1/completions', normal);
      expect(after.status).toBe(200);
      expect(after.body.choices).toEqual(expected.body.choices);
      // Other models of the process still compute right.
      const reference = await EmbeddedBackend.load(checkpoint);
      const [forward] = await reference.forward([[1, 2, 3, 4]]);
      reference.dispose();
      expect(forward.every(Number.isFinite)).toBe(true);
    } finally {
      await server.app.close();
    }
  });
});

it('a policy worker that dies (--workers 2) fails its request; the next is served by new workers', async () => {
  let loads = 0;
  const app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint,
      modelName: 'demo-cold',
      // The first policy's worker 0 exits inside sample (the process-level failure of a worker thread).
      loadPolicy: () =>
        ParallelEmbeddedBackend.load(checkpoint, {
          workers: 2,
          ...(loads++ === 0 ? { fault: { worker: 0, method: 'sample', kind: 'exit' as const } } : {}),
        }),
      stateDir: mkdtempSync(join(tmpdir(), 'curricula-openai-workers-')),
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const failed = await post(url, '/v1/completions', normal);
    expect(failed.status).toBe(500);
    const after = await post(url, '/v1/completions', normal);
    expect(after.status).toBe(200);
    expect(after.body.choices[0].token_ids.length).toBeGreaterThan(0);
    expect(loads).toBe(2);
  } finally {
    await app.close();
  }
});

it('a corrupted wasm heap: the server replaces the backend and reloads the model for the next request', async () => {
  // What an unguarded overrun leaves behind, made directly: the whole heap overwritten. The model, the
  // allocator and tfjs's own tables are garbage, so the backend itself must be replaced (runtime.ts).
  const generation = runtimeGeneration();
  const server = await serve({
    wrap: (policy) => {
      const sample = policy.sample.bind(policy);
      policy.sample = async (prompts, options) => {
        if (options.n === 7) {
          const heap = (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8;
          heap.fill(0xff);
          throw new Error('memory access out of bounds');
        }
        return sample(prompts, options);
      };
      return policy;
    },
  });
  try {
    const expected = await post(server.url, '/v1/completions', normal);
    expect(expected.status).toBe(200);
    const failed = await post(server.url, '/v1/completions', { prompt, n: 7, max_tokens: 2 });
    expect(failed.status).toBe(500);
    expect(wasmRuntimeHealthy()).toBe(true);
    expect(runtimeGeneration()).toBe(generation + 1);
    const after = await post(server.url, '/v1/completions', normal);
    expect(after.status).toBe(200);
    expect(after.body.choices).toEqual(expected.body.choices);
  } finally {
    await server.app.close();
  }
});
