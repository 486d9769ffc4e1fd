// The Tinker wire codec against bytes written by the official Python protobuf runtime with the SDK's own
// tinker_public_pb2 (src/testing/backends/tinker/wire/fixtures/make-golden.py), plus round trips and
// malformed input.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeForwardBackwardOutput,
  decodeForwardBackwardRequest,
  decodeJsonForwardBackwardRequest,
  decodeSampleResponse,
  encodeForwardBackwardOutput,
  encodeForwardBackwardRequest,
  encodeJsonForwardBackwardRequest,
  encodeSampleResponse,
  type ForwardBackwardOutput,
  type ForwardBackwardRequest,
  forwardBackwardOutputFromJson,
  forwardBackwardOutputToJson,
  type SampleResponse,
  sampleResponseFromJson,
  sampleResponseToJson,
  WireFormatError,
} from './index.ts';

const fixture = (name: string) =>
  new Uint8Array(
    readFileSync(join(import.meta.dirname, '../../../testing/backends/tinker/wire/fixtures', name)),
  );

const ceRequest: ForwardBackwardRequest = {
  modelId: 's1:train:0',
  seqId: 1,
  lossFn: 'cross_entropy',
  lossFnConfig: {},
  forwardOnly: false,
  data: [
    {
      modelInput: [{ type: 'encoded_text', tokens: [5, 6, 7, 8] }],
      lossFnInputs: {
        target_tokens: { data: [6, 7, 8, 9], dtype: 'int64', shape: [4] },
        weights: { data: [0, 1, 1, 1], dtype: 'float32', shape: [4] },
      },
    },
    {
      modelInput: [{ type: 'encoded_text', tokens: [20, 21] }],
      lossFnInputs: {
        target_tokens: { data: [21, 22], dtype: 'int64', shape: [2] },
        weights: { data: [1, 0.5], dtype: 'float32', shape: [2] },
      },
    },
  ],
};

const ppoRequest: ForwardBackwardRequest = {
  modelId: 'm-2',
  seqId: 7,
  lossFn: 'ppo',
  lossFnConfig: { clip_low_threshold: 0.75, clip_high_threshold: 1.25 },
  forwardOnly: true,
  data: [
    {
      modelInput: [{ type: 'encoded_text', tokens: [3, 4, 5] }],
      lossFnInputs: {
        target_tokens: { data: [4, 5, 6], dtype: 'int64', shape: [3] },
        logprobs: { data: [-0.5, -1.25, -2], dtype: 'float32', shape: [3] },
        advantages: { data: [1, 1, -0.5], dtype: 'float32', shape: [3] },
      },
    },
  ],
};

const output: ForwardBackwardOutput = {
  lossFnOutputType: 'TorchLossReturn',
  lossFnOutputs: [
    { logprobs: { data: [-0.5, -1.25, -2], dtype: 'float32', shape: [3] } },
    { logprobs: { data: [-0.125, -4], dtype: 'float32', shape: [2] } },
  ],
  metrics: { 'loss:sum': 7.875 },
};

const sample: SampleResponse = {
  sequences: [
    { stopReason: 'stop', tokens: [11, 12, 2], logprobs: [-0.25, -1.5, -3] },
    { stopReason: 'length', tokens: [40] },
  ],
  promptLogprobs: [null, -2.5, -0.75],
};

describe('protobuf codec against the official Python protobuf (golden bytes)', () => {
  it('decodes and re-encodes a cross_entropy ForwardBackwardRequest byte for byte', () => {
    const golden = fixture('fwdbwd-request-ce.bin');
    expect(decodeForwardBackwardRequest(golden)).toEqual(ceRequest);
    expect(Buffer.from(encodeForwardBackwardRequest(ceRequest)).toString('hex')).toBe(
      Buffer.from(golden).toString('hex'),
    );
  });

  it('decodes and re-encodes a forward_only ppo request with loss_fn_config byte for byte', () => {
    const golden = fixture('fwdbwd-request-ppo-forward-only.bin');
    expect(decodeForwardBackwardRequest(golden)).toEqual(ppoRequest);
    expect(Buffer.from(encodeForwardBackwardRequest(ppoRequest)).toString('hex')).toBe(
      Buffer.from(golden).toString('hex'),
    );
  });

  it('decodes and re-encodes a ForwardBackwardOutput (BatchedTensor byte offsets) byte for byte', () => {
    const golden = fixture('fwdbwd-output.bin');
    expect(decodeForwardBackwardOutput(golden)).toEqual(output);
    expect(Buffer.from(encodeForwardBackwardOutput(output)).toString('hex')).toBe(
      Buffer.from(golden).toString('hex'),
    );
  });

  it('decodes and re-encodes a SampleResponse (NaN prompt log-prob, absent logprobs) byte for byte', () => {
    const golden = fixture('sample-response.bin');
    expect(decodeSampleResponse(golden)).toEqual(sample);
    expect(Buffer.from(encodeSampleResponse(sample)).toString('hex')).toBe(
      Buffer.from(golden).toString('hex'),
    );
  });
});

describe('round trips', () => {
  it('ForwardBackwardOutput with two fields, int64 and float32, survives encode → decode', () => {
    const value: ForwardBackwardOutput = {
      lossFnOutputType: 'TorchLossReturn',
      lossFnOutputs: [
        {
          logprobs: { data: [-1], dtype: 'float32', shape: [1] },
          ids: { data: [2 ** 40], dtype: 'int64', shape: [1] },
        },
        {
          logprobs: { data: [], dtype: 'float32', shape: [0] },
          ids: { data: [], dtype: 'int64', shape: [0] },
        },
      ],
      metrics: { 'loss:sum': -3.5, 'tokens:sum': 1 },
    };
    expect(decodeForwardBackwardOutput(encodeForwardBackwardOutput(value))).toEqual(value);
  });

  it('the JSON codec round-trips requests, outputs and sample responses', () => {
    expect(
      decodeJsonForwardBackwardRequest(
        JSON.parse(JSON.stringify(encodeJsonForwardBackwardRequest(ppoRequest))),
      ),
    ).toEqual(ppoRequest);
    expect(
      forwardBackwardOutputFromJson(JSON.parse(JSON.stringify(forwardBackwardOutputToJson(output)))),
    ).toEqual(output);
    expect(sampleResponseFromJson(JSON.parse(JSON.stringify(sampleResponseToJson(sample))))).toEqual(sample);
  });

  it('the legacy JSON forward body (forward_input) is a forward-only request', () => {
    const request = decodeJsonForwardBackwardRequest({
      model_id: 'm',
      seq_id: 3,
      forward_input: {
        data: [{ model_input: { chunks: [{ type: 'encoded_text', tokens: [1, 2] }] }, loss_fn_inputs: {} }],
        loss_fn: 'cross_entropy',
      },
    });
    expect(request.forwardOnly).toBe(true);
    expect(request.data[0].modelInput).toEqual([{ type: 'encoded_text', tokens: [1, 2] }]);
  });
});

describe('malformed input', () => {
  it('garbage bytes, truncated messages and wrong wire types are WireFormatErrors', () => {
    const golden = fixture('fwdbwd-request-ce.bin');
    expect(() => decodeForwardBackwardRequest(golden.subarray(0, golden.length - 3))).toThrow(
      WireFormatError,
    );
    expect(() => decodeForwardBackwardRequest(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff]))).toThrow(
      WireFormatError,
    );
    // field 1 (model_id) sent as a varint
    expect(() => decodeForwardBackwardRequest(new Uint8Array([0x08, 0x01]))).toThrow(/model_id: wire type 0/);
    expect(() => decodeSampleResponse(new Uint8Array([0x0a, 0x02, 0x08, 0x07]))).toThrow(
      /unknown stop_reason 7/,
    );
  });

  it('tensor bytes that do not fill the dtype or the shape are refused', () => {
    const bad: ForwardBackwardRequest = {
      ...ceRequest,
      data: [
        {
          ...ceRequest.data[0],
          lossFnInputs: { weights: { data: [1, 2, 3], dtype: 'float32', shape: [4] } },
        },
      ],
    };
    expect(() => decodeForwardBackwardRequest(encodeForwardBackwardRequest(bad))).toThrow(
      /shape \[4\] holds 4 values, data has 3/,
    );
    expect(() =>
      decodeJsonForwardBackwardRequest({
        model_id: 'm',
        forward_backward_input: { data: 'x', loss_fn: 'ppo' },
      }),
    ).toThrow(/forward_backward_input.data/);
  });

  it('unknown fields are skipped (forward compatibility)', () => {
    const golden = fixture('sample-response.bin');
    const extra = new Uint8Array([...golden, 0x2a, 0x01, 0x00]); // field 5, 1 byte
    expect(decodeSampleResponse(extra)).toEqual(sample);
  });
});
