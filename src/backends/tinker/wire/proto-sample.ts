// tinker_public.SampleResponse, the other protobuf result of the Tinker wire (an asample future's result
// when the client accepts application/x-protobuf; tinker-wire-sdk-0.25.md §3):
//   message SampleResponse { repeated SampledSequence sequences = 1; optional bytes prompt_logprobs = 2;
//     optional TopkPromptLogprobs topk_prompt_logprobs = 3; int32 prompt_cache_hit_tokens = 4; }
//   message SampledSequence { StopReason stop_reason = 1; bytes tokens = 2; optional bytes logprobs = 3; }
//   enum StopReason { STOP_REASON_STOP = 0; STOP_REASON_LENGTH = 1; }
// tokens are int32 LE, logprobs float32 LE; a null prompt log-prob travels as NaN (the SDK maps NaN back
// to None). Top-k prompt log-probs are skipped on decode and never written. An unknown stop reason is an
// error, as in the SDK.
import { decodeFloat32, decodeInt32, encodeFloat32, encodeInt32 } from './packed.ts';
import { BinaryWriter, expectWireType, readFields, WireType } from './proto-reader.ts';
import {
  type SampleResponse,
  WireFormatError,
  type WireSampledSequence,
  type WireStopReason,
} from './types.ts';

const stopReasonCode: Record<WireStopReason, number> = { stop: 0, length: 1 };
const stopReasonName: WireStopReason[] = ['stop', 'length'];

export function encodeSampleResponse(response: SampleResponse): Uint8Array {
  const writer = new BinaryWriter();
  for (const sequence of response.sequences) {
    writer.tag(1, WireType.LengthDelimited).fork();
    const code = stopReasonCode[sequence.stopReason];
    if (code !== 0) writer.tag(1, WireType.Varint).int32(code);
    if (sequence.tokens.length > 0)
      writer.tag(2, WireType.LengthDelimited).bytes(encodeInt32(sequence.tokens));
    if (sequence.logprobs !== undefined) {
      writer.tag(3, WireType.LengthDelimited).bytes(encodeFloat32(sequence.logprobs));
    }
    writer.join();
  }
  if (response.promptLogprobs !== undefined) {
    const values = response.promptLogprobs.map((value) => (value === null ? Number.NaN : value));
    writer.tag(2, WireType.LengthDelimited).bytes(encodeFloat32(values));
  }
  if (response.promptCacheHitTokens) writer.tag(4, WireType.Varint).int32(response.promptCacheHitTokens);
  return writer.finish();
}

export function decodeSampleResponse(bytes: Uint8Array): SampleResponse {
  const response: SampleResponse = { sequences: [] };
  readFields(bytes, 'SampleResponse', (fieldNo, wireType, reader) => {
    switch (fieldNo) {
      case 1:
        expectWireType(wireType, WireType.LengthDelimited, 'SampleResponse', 'sequences');
        response.sequences.push(readSequence(reader.bytes(), response.sequences.length));
        return true;
      case 2:
        expectWireType(wireType, WireType.LengthDelimited, 'SampleResponse', 'prompt_logprobs');
        response.promptLogprobs = decodeFloat32(reader.bytes(), 'prompt_logprobs').map((value) =>
          Number.isNaN(value) ? null : value,
        );
        return true;
      case 4:
        expectWireType(wireType, WireType.Varint, 'SampleResponse', 'prompt_cache_hit_tokens');
        response.promptCacheHitTokens = reader.int32();
        return true;
      default:
        return false;
    }
  });
  return response;
}

function readSequence(bytes: Uint8Array, index: number): WireSampledSequence {
  const sequence: WireSampledSequence = { stopReason: 'stop', tokens: [] };
  readFields(bytes, 'SampledSequence', (fieldNo, wireType, reader) => {
    switch (fieldNo) {
      case 1: {
        expectWireType(wireType, WireType.Varint, 'SampledSequence', 'stop_reason');
        const code = reader.int32();
        const name = stopReasonName[code];
        if (name === undefined) throw new WireFormatError(`sequences[${index}]: unknown stop_reason ${code}`);
        sequence.stopReason = name;
        return true;
      }
      case 2:
        expectWireType(wireType, WireType.LengthDelimited, 'SampledSequence', 'tokens');
        sequence.tokens = decodeInt32(reader.bytes(), `sequences[${index}].tokens`);
        return true;
      case 3:
        expectWireType(wireType, WireType.LengthDelimited, 'SampledSequence', 'logprobs');
        sequence.logprobs = decodeFloat32(reader.bytes(), `sequences[${index}].logprobs`);
        return true;
      default:
        return false;
    }
  });
  return sequence;
}
