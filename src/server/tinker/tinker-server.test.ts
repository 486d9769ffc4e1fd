// `curricula serve --tinker` over real HTTP on loopback with the real demo-cold checkpoint: service
// endpoints, seq_id order, idempotent retries, the long poll, checkpoints, sampling, and bad input (each
// answered with a JSON error, the server serving on). Losses: tinker-losses.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSampleResponse } from '../../backends/tinker/wire/index.ts';
import {
  apiKey,
  datum,
  expectClose,
  request,
  sequences,
  startTestServer,
  type TestServer,
} from '../../testing/server/tinker/test-server.ts';

let server: TestServer;
let client: TestServer['client'];
let reference: TestServer['reference'];
const newModel = () => server.newModel();

beforeAll(async () => {
  server = await startTestServer({ bodyLimit: 4 * 1024 * 1024 });
  client = server.client;
  reference = server.reference;
});

afterAll(async () => {
  await server?.close();
});

describe('service endpoints', () => {
  it('client/config, capabilities, telemetry answer what the stock SDK needs', async () => {
    const config = await client.json('client/config', { sdk_version: '0.25.0' });
    expect(config).toMatchObject({
      use_pyqwest_transport: false,
      proto_compress_fwdbwd: false,
      pjwt_auth_enabled: false,
    });
    const capabilities = (await (
      await fetch(`${client.baseUrl}/api/v1/get_server_capabilities`, { headers: { 'x-api-key': apiKey } })
    ).json()) as any;
    expect(capabilities.supported_models).toEqual([{ model_name: 'demo-cold', max_context_length: 128 }]);
    expect(await client.json('telemetry', { events: [] })).toEqual({ status: 'accepted' });
  });
});

describe('ordering and retries', () => {
  const ceData = () => sequences.map((s) => datum(s, { weights: s.slice(1).map(() => 1) }));
  const adam = {
    learning_rate: 0.05,
    beta1: 0.9,
    beta2: 0.95,
    eps: 1e-8,
    weight_decay: 0,
    grad_clip_norm: 0,
  };

  it('runs by seq_id, not arrival: optim_step (seq 3) sent before forward_backward (seq 2) waits for it', async () => {
    const modelId = await newModel();
    await client.forwardBackward(request(modelId, 1, 'cross_entropy', ceData()));
    const optim = await client.json('optim_step', { model_id: modelId, seq_id: 3, adam_params: adam });
    const output = await client.forwardBackward(
      request(modelId, 2, 'cross_entropy', ceData(), { forwardOnly: true }),
    );
    await client.retrieve(optim.request_id, 'application/json');
    // seq 2 saw the weights before the step of seq 3 …
    const expected = await reference.forward(sequences);
    expectClose(output.lossFnOutputs[0].logprobs.data, expected[0], 5);
    // … and the step did happen, once
    const after = await client.forwardBackward(
      request(modelId, 4, 'cross_entropy', ceData(), { forwardOnly: true }),
    );
    expect(Math.abs(after.lossFnOutputs[0].logprobs.data[0] - expected[0][0])).toBeGreaterThan(1e-3);
    expect((await client.json('get_info', { model_id: modelId })).optimizer_steps).toBe(1);
  });

  it('the same idempotency key returns the same future and steps once; a reused seq_id is a 400', async () => {
    const modelId = await newModel();
    await client.forwardBackward(request(modelId, 1, 'cross_entropy', ceData()));
    const headers = { 'x-idempotency-key': 'stainless-python-retry-1' };
    const first = await client.json(
      'optim_step',
      { model_id: modelId, seq_id: 2, adam_params: adam },
      headers,
    );
    const retry = await client.json(
      'optim_step',
      { model_id: modelId, seq_id: 2, adam_params: adam },
      headers,
    );
    expect(retry.request_id).toBe(first.request_id);
    await client.retrieve(first.request_id, 'application/json');
    const again = await client.post('optim_step', { model_id: modelId, seq_id: 2, adam_params: adam });
    expect(again.status).toBe(400);
    expect(((await again.json()) as any).error.message).toMatch(/seq_id 2 was already received/);
    expect((await client.json('get_info', { model_id: modelId })).optimizer_steps).toBe(1);
  });

  it('long-polls with try_again, and fails a request whose predecessor never comes', async () => {
    const modelId = await newModel();
    const waiting = await client.json('optim_step', { model_id: modelId, seq_id: 3, adam_params: adam });
    const started = Date.now();
    const poll = await client.json('retrieve_future', { request_id: waiting.request_id });
    expect(poll.type).toBe('try_again');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const result = await client.retrieve(waiting.request_id, 'application/json');
    expect(result).toEqual({
      error: expect.stringMatching(/seq_id 3 waited .* for seq_id 1/),
      category: 'user',
    });
    expect((await client.json('get_info', { model_id: modelId })).optimizer_steps).toBe(0);
  });
});

describe('checkpoints and sampling', () => {
  it('save_weights / load_weights restore the saved weights; named sampler checkpoints sample', async () => {
    const modelId = await newModel();
    const ce = sequences.map((s) => datum(s, { weights: s.slice(1).map(() => 1) }));
    const saved = await client.call('save_weights', { model_id: modelId, path: 'before', seq_id: 1 });
    expect(saved.path).toBe(`tinker://${modelId}/weights/before`);
    await client.forwardBackward(request(modelId, 2, 'cross_entropy', ce));
    await client.call('optim_step', { model_id: modelId, seq_id: 3, adam_params: { learning_rate: 0.05 } });
    await client.call('load_weights', { model_id: modelId, path: saved.path, seq_id: 4, optimizer: false });
    const restored = await client.forwardBackward(
      request(modelId, 5, 'cross_entropy', ce, { forwardOnly: true }),
    );
    const expected = await reference.forward(sequences);
    expectClose(restored.lossFnOutputs[1].logprobs.data, expected[1], 5);

    const named = await client.call('save_weights_for_sampler', {
      model_id: modelId,
      path: 'sampler-a',
      seq_id: 6,
    });
    expect(named.path).toBe(`tinker://${modelId}/sampler_weights/sampler-a`);
    const session = await client.json('create_session', {});
    const created = await client.json('create_sampling_session', {
      session_id: session.session_id,
      model_path: named.path,
    });
    const response = await client.sample({
      sampling_session_id: created.sampling_session_id,
      num_samples: 3,
      prompt: { chunks: [{ type: 'encoded_text', tokens: [1, 40, 41] }] },
      sampling_params: { max_tokens: 5, seed: 7, temperature: 1, top_k: -1, top_p: 1 },
      prompt_logprobs: true,
    });
    expect(response.sequences).toHaveLength(3);
    for (const sequence of response.sequences) {
      expect(sequence.tokens.length).toBeLessThanOrEqual(5);
      expect(sequence.logprobs).toHaveLength(sequence.tokens.length);
      for (const token of sequence.tokens) expect(token).toBeLessThan(99);
      for (const value of sequence.logprobs!) expect(value).toBeLessThanOrEqual(0);
    }
    const promptScores = (await reference.forward([[1, 40, 41]]))[0];
    expect(response.promptLogprobs?.[0]).toBeNull();
    expect(response.promptLogprobs?.[2]).toBeCloseTo(promptScores[1], 5);
  });

  it('unnamed save_weights_for_sampler gives a sampling session; JSON results when protobuf is not accepted', async () => {
    const modelId = await newModel();
    const saved = await client.call('save_weights_for_sampler', {
      model_id: modelId,
      sampling_session_seq_id: 0,
      seq_id: 1,
    });
    expect(saved.sampling_session_id).toMatch(/:sample:0$/);
    const body = {
      sampling_session_id: saved.sampling_session_id,
      num_samples: 2,
      prompt: { chunks: [{ tokens: [1, 50] }] },
      sampling_params: { max_tokens: 4, seed: 1 },
    };
    const envelope = await client.json('asample', body);
    const json = await client.retrieve(envelope.request_id, 'application/json');
    expect(json.type).toBe('sample');
    const proto = decodeSampleResponse(
      await client.retrieve((await client.json('asample', body)).request_id),
    );
    // same seed, same weights: same tokens whatever the encoding
    expect(proto.sequences.map((s) => s.tokens)).toEqual(
      json.sequences.map((s: { tokens: number[] }) => s.tokens),
    );
  });
});

describe('bad input', () => {
  it('answers each with the right status and a JSON error, and keeps serving', async () => {
    const modelId = await newModel();
    const garbage = await fetch(`${client.baseUrl}/api/v1/forward_backward`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'x-api-key': apiKey },
      body: new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as any).error.message).toMatch(/malformed protobuf/);
    const oversized = await fetch(`${client.baseUrl}/api/v1/forward_backward`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'x-api-key': apiKey },
      body: new Uint8Array(5 * 1024 * 1024),
    });
    expect(oversized.status).toBe(413);
    expect(((await oversized.json()) as any).error.message).toMatch(/too large/i);
    const zstd = await client.post('forward_backward', {}, { 'content-encoding': 'zstd' });
    expect(zstd.status).toBe(415);
    expect(((await zstd.json()) as any).error.message).toMatch(/zstd/);
    const badJson = await fetch(`${client.baseUrl}/api/v1/optim_step`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: '{"model_id": ',
    });
    expect(badJson.status).toBe(400);
    expect(
      (await client.post('optim_step', { model_id: 'nope', seq_id: 1, adam_params: { learning_rate: 1 } }))
        .status,
    ).toBe(404);
    expect((await client.post('retrieve_future', { request_id: 'nope' })).status).toBe(404);
    expect((await client.post('session_heartbeat', { session_id: 'nope' })).status).toBe(404);
    const wrongKey = await fetch(`${client.baseUrl}/api/v1/client/config`, {
      method: 'POST',
      headers: { 'x-api-key': 'tml-wrong' },
    });
    expect(wrongKey.status).toBe(401);
    for (const [seq, path] of [
      [1, 'tinker://../../etc/weights/x'],
      [2, `tinker://${modelId}/weights/..`],
      [3, 'file:///etc/passwd'],
      [4, '/tmp/x'],
      [5, `tinker://${modelId}/weights/a/b`],
    ] as const) {
      const response = await client.post('load_weights', {
        model_id: modelId,
        seq_id: seq,
        path,
        optimizer: false,
      });
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as any).error.message).toMatch(/checkpoint|plain name|tinker:\/\//);
    }
    const saveEscape = await client.post('save_weights', {
      model_id: modelId,
      seq_id: 6,
      path: '../outside',
    });
    expect(saveEscape.status).toBe(400);
    // still serving, and seq 7 runs (1–6 were used up)
    const output = await client.forwardBackward(
      request(modelId, 7, 'cross_entropy', [datum(sequences[1], { weights: [1, 1, 1, 1] })]),
    );
    expect(output.lossFnOutputs).toHaveLength(1);
  });
});
