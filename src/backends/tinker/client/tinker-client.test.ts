// TinkerPolicyBackend against the REAL `curricula serve --tinker` (in process, loopback, the demo-cold
// checkpoint): forward, forwardBackward + optimStep and sample over HTTP equal the in-process embedded
// backend; both codecs; both mappings of the 'linear' loss; a server that is down.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Datum } from '../../../core/policy.ts';
import { Rng } from '../../../core/rng.ts';
import { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import {
  apiKey,
  checkpoint,
  clientOptions,
  startTinkerServer,
} from '../../../testing/backends/tinker/client/test-server.ts';
import { TinkerPolicyBackend } from './backend.ts';
import { TinkerUnreachableError } from './http.ts';

let app: FastifyInstance;
let url: string;
let tokenizer: EmbeddedBackend['tokenizer'];
const opened: TinkerPolicyBackend[] = [];

beforeAll(async () => {
  ({ app, url } = await startTinkerServer());
  const local = await EmbeddedBackend.load(checkpoint);
  tokenizer = local.tokenizer;
  local.dispose();
});

afterAll(async () => {
  for (const backend of opened) await backend.close();
  await app?.close();
});

async function connect(extra: Record<string, unknown> = {}): Promise<TinkerPolicyBackend> {
  const backend = await TinkerPolicyBackend.connect(clientOptions(url, extra), { tokenizer });
  opened.push(backend);
  return backend;
}

const sequences = [
  [1, 40, 41, 42, 43, 44, 45],
  [1, 50, 51, 52, 53],
];
/** Mixed-sign weights (dL/dlogp of a policy-gradient step: both signs occur). */
const data: Datum[] = [
  { tokens: sequences[0], weights: [0, 0.5, -1, 0.25, -0.75, 1] },
  { tokens: sequences[1], weights: [0, -0.5, 2, -1] },
];
const probe = [[1, 40, 41, 42, 43, 44, 45, 50, 51, 52, 53]];

function expectAllClose(actual: number[][], expected: number[][], tolerance: number): void {
  expect(actual.map((row) => row.length)).toEqual(expected.map((row) => row.length));
  let worst = 0;
  actual.forEach((row, i) => {
    row.forEach((value, t) => {
      worst = Math.max(worst, Math.abs(value - expected[i][t]));
    });
  });
  expect(worst).toBeLessThan(tolerance);
}

describe('TinkerPolicyBackend over curricula serve --tinker', () => {
  it('connects: capabilities list the served model and its context length', async () => {
    const backend = await connect();
    expect(backend.capabilities.models).toEqual([{ name: 'demo-cold', maxContextLength: 128 }]);
    expect(backend.contextLength).toBe(128);
    expect(backend.modelId).toMatch(/:train:0$/);
  });

  it.each(['protobuf', 'json'])('forward log-probs equal the embedded backend (%s codec)', async (codec) => {
    const backend = await connect({ codec });
    const reference = await EmbeddedBackend.load(checkpoint);
    try {
      expectAllClose(await backend.forward(sequences), await reference.forward(sequences), 1e-5);
    } finally {
      reference.dispose();
    }
  });

  it.each([
    ['cross_entropy', 'linear'],
    ['importance_sampling', 'linear'],
    ['cross_entropy', 'cross_entropy'],
  ] as const)(
    'linearLoss %s: forwardBackward(%s) + optimStep give the in-process weights',
    async (linearLoss, loss) => {
      const backend = await connect({ linearLoss });
      const reference = await EmbeddedBackend.load(checkpoint);
      try {
        const lossData =
          loss === 'cross_entropy' ? data.map((d) => ({ ...d, weights: d.weights.map(Math.abs) })) : data;
        const optim = { learningRate: 0.01 };
        for (let step = 0; step < 2; step++) {
          const remote = await backend.forwardBackward(lossData, loss);
          const local = await reference.forwardBackward(lossData, loss);
          expect(remote.loss).toBeCloseTo(local.loss, 4);
          expect(remote.tokens).toBe(local.tokens);
          expectAllClose(remote.logprobs, local.logprobs, 1e-4);
          const remoteStep = await backend.optimStep(optim);
          const localStep = await reference.optimStep(optim);
          expect(remoteStep.step).toBe(localStep.step);
          expect(remoteStep.gradNorm).toBeCloseTo(localStep.gradNorm, 3);
        }
        const after = await reference.forward(probe);
        const base = await EmbeddedBackend.load(checkpoint);
        // The step moved the weights (else the comparison below would prove nothing).
        const before = await base.forward(probe);
        base.dispose();
        expect(Math.max(...after[0].map((value, t) => Math.abs(value - before[0][t])))).toBeGreaterThan(1e-3);
        expectAllClose(await backend.forward(probe), after, 1e-4);
      } finally {
        reference.dispose();
      }
    },
  );

  it('pipelines forward_backward and optim_step (sent back to back, in seq_id order)', async () => {
    const backend = await connect();
    const reference = await EmbeddedBackend.load(checkpoint);
    try {
      const [, stepped] = await Promise.all([
        backend.forwardBackward(data, 'linear'),
        backend.optimStep({ learningRate: 0.01 }),
      ]);
      await reference.forwardBackward(data, 'linear');
      await reference.optimStep({ learningRate: 0.01 });
      expect(stepped.step).toBe(1);
      expectAllClose(await backend.forward(probe), await reference.forward(probe), 1e-4);
    } finally {
      reference.dispose();
    }
  });

  it('sample: prompt p is the embedded sampler at seed = the p-th draw of Rng(seed) (as a parallel worker), and repeats', async () => {
    const backend = await connect();
    const reference = await EmbeddedBackend.load(checkpoint);
    try {
      const options = { n: 3, temperature: 1, topP: 1, maxTokens: 12, seed: 77 };
      // ParallelEmbeddedBackend.sample seeds prompt p's own Rng with the p-th nextUint32 of Rng(seed).
      const draws = new Rng(options.seed);
      const promptSeeds = [draws.nextUint32(), draws.nextUint32()];
      const prompts = [
        [1, 40, 41, 42],
        [1, 43, 44],
      ];
      const both = await backend.sample(prompts, options);
      for (const [p, prompt] of prompts.entries()) {
        const [local] = await reference.sample([prompt], { ...options, seed: promptSeeds[p] });
        expect(both[p].map((s) => s.tokens)).toEqual(local.map((s) => s.tokens));
        expect(both[p].map((s) => s.text)).toEqual(local.map((s) => s.text));
        expect(both[p].map((s) => s.stopReason)).toEqual(local.map((s) => s.stopReason));
        expectAllClose(
          both[p].map((s) => s.logprobs),
          local.map((s) => s.logprobs),
          1e-5,
        );
      }
      const prompt = [prompts[0]];
      const remote = [both[0]];
      expect((await backend.sample(prompt, options))[0].map((s) => s.tokens)).toEqual(
        remote[0].map((s) => s.tokens),
      );
      // After a step the sampler must see the new weights (save_weights_for_sampler again).
      await backend.forwardBackward(data, 'linear');
      await backend.optimStep({ learningRate: 0.05 });
      await reference.forwardBackward(data, 'linear');
      await reference.optimStep({ learningRate: 0.05 });
      const stepped = await backend.sample(prompt, options);
      expectAllClose(
        stepped[0].map((s) => s.logprobs),
        (await reference.sample(prompt, { ...options, seed: promptSeeds[0] }))[0].map((s) => s.logprobs),
        1e-4,
      );
    } finally {
      reference.dispose();
    }
  });

  it('the JSON codec samples the same sequences as protobuf (legacy JSON results)', async () => {
    const options = { n: 2, temperature: 1, topP: 1, maxTokens: 8, seed: 5 };
    const viaJson = await (await connect({ codec: 'json' })).sample([[1, 50, 51]], options);
    const viaProtobuf = await (await connect()).sample([[1, 50, 51]], options);
    expect(viaJson[0].map((s) => s.tokens)).toEqual(viaProtobuf[0].map((s) => s.tokens));
    expectAllClose(
      viaJson[0].map((s) => s.logprobs),
      viaProtobuf[0].map((s) => s.logprobs),
      1e-6,
    );
  });

  it('a server that is down: one UserError naming the URL', async () => {
    // A port that was just free: listen on 0, note the port, close.
    const probeServer = createServer();
    await new Promise<void>((resolve) => probeServer.listen(0, '127.0.0.1', resolve));
    const port = (probeServer.address() as AddressInfo).port;
    await new Promise((resolve) => probeServer.close(resolve));
    const down = `http://127.0.0.1:${port}`;
    await expect(TinkerPolicyBackend.connect(clientOptions(down), { tokenizer })).rejects.toThrow(
      new TinkerUnreachableError(`cannot reach the Tinker server at ${down} (ECONNREFUSED); is it running?`),
    );
  });

  it('a wrong API key and an unknown base model are clear errors', async () => {
    await expect(
      TinkerPolicyBackend.connect({ ...clientOptions(url), apiKey: 'tml-wrong' }, { tokenizer }),
    ).rejects.toThrow(/client\/config: HTTP 401/);
    await expect(
      TinkerPolicyBackend.connect({ ...clientOptions(url), baseModel: 'Qwen/Qwen3-8B' }, { tokenizer }),
    ).rejects.toThrow(`does not serve base model 'Qwen/Qwen3-8B'; it serves: demo-cold`);
    expect(apiKey.startsWith('tml-')).toBe(true);
  });
});
