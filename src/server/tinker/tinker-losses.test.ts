// Tinker's built-in losses served by `curricula serve --tinker` (real HTTP, real demo-cold checkpoint):
// log-probs aligned with the targets, loss:sum against the closed forms, and one Adam step on the server
// equal to the same step taken in process with hand-derived per-token weights; refused losses and inputs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  encodeJsonForwardBackwardRequest,
  forwardBackwardOutputFromJson,
} from '../../backends/tinker/wire/index.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import {
  checkpoint,
  datum,
  expectClose,
  request,
  sequences,
  startTestServer,
  type TestServer,
  vector,
} from '../../testing/server/tinker/test-server.ts';

let server: TestServer;
let client: TestServer['client'];
let reference: TestServer['reference'];
const newModel = () => server.newModel();

beforeAll(async () => {
  server = await startTestServer();
  client = server.client;
  reference = server.reference;
});

afterAll(async () => {
  await server?.close();
});

describe('forward_backward losses', () => {
  it('cross_entropy returns the policy log-probs of the targets (aligned, not shifted) and loss:sum = −Σ w·logp', async () => {
    const modelId = await newModel();
    const weights = [
      [0, 1, 1, 1, 1, 0.5],
      [1, 1, 2, 1],
    ];
    const output = await client.forwardBackward(
      request(
        modelId,
        1,
        'cross_entropy',
        sequences.map((s, i) => datum(s, { weights: weights[i] })),
      ),
    );
    const expected = await reference.forward(sequences);
    let loss = 0;
    output.lossFnOutputs.forEach((record, i) => {
      expect(record.logprobs.data).toHaveLength(sequences[i].length - 1);
      record.logprobs.data.forEach((value, t) => {
        expect(value).toBeCloseTo(expected[i][t], 5);
        loss -= weights[i][t] * expected[i][t];
      });
    });
    expect(output.metrics['loss:sum']).toBeCloseTo(loss, 4);
  });

  // Independent closed forms (Tinker docs), per token: value and d value / d logp.
  const closedForms: Record<string, (lp: number, q: number, a: number) => [number, number]> = {
    importance_sampling: (lp, q, a) => [-Math.exp(lp - q) * a, -Math.exp(lp - q) * a],
    ppo: (lp, q, a) => {
      const r = Math.exp(lp - q);
      const clipped = Math.min(1.2, Math.max(0.8, r));
      return r * a <= clipped * a ? [-r * a, -r * a] : [-clipped * a, 0];
    },
    cispo: (lp, q, a) => {
      const w = Math.min(4, Math.max(0, Math.exp(lp - q)));
      return [-w * a * lp, -w * a];
    },
  };

  for (const lossFn of Object.keys(closedForms)) {
    it(`${lossFn}: loss:sum matches the closed form and one Adam step equals the same step taken in process`, async () => {
      const modelId = await newModel();
      const current = await reference.forward(sequences);
      // Sampling log-probs off by ±0.4 so that some PPO tokens clip, advantages of both signs.
      const sampling = current.map((row) => row.map((lp, t) => lp + (t % 2 === 0 ? 0.4 : -0.4)));
      const advantages = [1, -0.5].map((a, i) => sequences[i].slice(1).map(() => a));
      const data = sequences.map((s, i) => datum(s, { logprobs: sampling[i], advantages: advantages[i] }));
      const output = await client.forwardBackward(request(modelId, 1, lossFn, data));
      let loss = 0;
      const derivatives = current.map((row, i) =>
        row.map((lp, t) => {
          const [value, derivative] = closedForms[lossFn](lp, sampling[i][t], advantages[i][t]);
          loss += value;
          return derivative;
        }),
      );
      expect(output.metrics['loss:sum']).toBeCloseTo(loss, 4);
      const adam = {
        learning_rate: 0.01,
        beta1: 0.9,
        beta2: 0.95,
        eps: 1e-8,
        weight_decay: 0,
        grad_clip_norm: 0,
      };
      await client.call('optim_step', { model_id: modelId, seq_id: 2, adam_params: adam });
      const after = await client.forwardBackward(
        request(
          modelId,
          3,
          'cross_entropy',
          sequences.map((s) => datum(s, { weights: s.slice(1).map(() => 1) })),
          {
            forwardOnly: true,
          },
        ),
      );
      const local = await EmbeddedBackend.load(checkpoint);
      try {
        await local.forwardBackward(
          sequences.map((tokens, i) => ({ tokens, weights: derivatives[i] })),
          'linear',
        );
        await local.optimStep({ learningRate: 0.01, betas: [0.9, 0.95], eps: 1e-8, weightDecay: 0 });
        const expected = await local.forward(sequences);
        const moved = Math.max(
          ...expected.flatMap((row, i) => row.map((v, t) => Math.abs(v - current[i][t]))),
        );
        expect(moved).toBeGreaterThan(1e-3);
        after.lossFnOutputs.forEach((record, i) => {
          expectClose(record.logprobs.data, expected[i], 4);
        });
      } finally {
        local.dispose();
      }
    });
  }

  it('accepts the legacy JSON body and answers JSON when protobuf is not accepted', async () => {
    const modelId = await newModel();
    const weights = [1, 1, 1, 1];
    const body = encodeJsonForwardBackwardRequest(
      request(modelId, 1, 'cross_entropy', [datum(sequences[1], { weights })]),
    );
    const envelope = await client.json('forward_backward', body);
    const result = await client.retrieve(envelope.request_id, 'application/json');
    const output = forwardBackwardOutputFromJson(result);
    const expected = (await reference.forward([sequences[1]]))[0];
    expectClose(output.lossFnOutputs[0].logprobs.data, expected, 5);
    expect(output.metrics['loss:sum']).toBeCloseTo(-expected.reduce((sum, value) => sum + value, 0), 4);
  });

  it('refuses dro, unknown config keys and misaligned targets with 400, and the seq_id is not lost', async () => {
    const modelId = await newModel();
    const data = [datum(sequences[0], { weights: sequences[0].slice(1).map(() => 1) })];
    const dro = await client.postProtobuf(request(modelId, 1, 'dro', data));
    expect(dro.status).toBe(400);
    expect(((await dro.json()) as any).error.message).toMatch(/dro.*not supported/);
    const badKey = await client.postProtobuf(request(modelId, 2, 'ppo', data, { lossFnConfig: { beta: 1 } }));
    expect(badKey.status).toBe(400);
    const shifted = datum(sequences[0], { weights: sequences[0].slice(1).map(() => 1) });
    shifted.lossFnInputs.target_tokens = vector(sequences[0].slice(0, -1), 'int64');
    const misaligned = await client.postProtobuf(request(modelId, 3, 'cross_entropy', [shifted]));
    expect(((await misaligned.json()) as any).error.message).toMatch(/next-token targets only/);
    // seq 4 runs at once: 1–3 were used up by the refused requests
    const output = await client.forwardBackward(request(modelId, 4, 'cross_entropy', data));
    expect(output.lossFnOutputs).toHaveLength(1);
  });
});
