// tinker_public.ForwardBackwardRequest, the one protobuf request of the Tinker wire (SDK ≥ 0.25 sends
// every forward_backward and forward as `Content-Type: application/x-protobuf`; tinker-wire-sdk-0.25.md §3):
//   message ForwardBackwardRequest { string model_id = 1; int32 seq_id = 2; repeated Datum data = 3;
//     string loss_fn = 4; map<string, double> loss_fn_config = 5; bool forward_only = 6; }
//   message Datum { repeated Chunk model_input = 1; map<string, Tensor> loss_fn_inputs = 2; }
//   message Chunk { oneof chunk { EncodedTextChunk encoded_text = 1; ImageChunk image = 2; DmelChunk dmel = 3; } }
//   message EncodedTextChunk { bytes tokens = 1; }            // int32 little-endian, packed
//   message ImageChunk { bytes data = 1; string format = 2; optional int32 expected_tokens = 3; }
//   message DmelChunk { bytes dmel = 1; }
// Map entries are written in sorted key order (deterministic output, as Python's
// SerializeToString(deterministic=True)); proto3 default values are omitted, as protobuf does.
import { decodeInt32, encodeInt32 } from './packed.ts';
import { BinaryWriter, expectWireType, readFields, readMapEntry, WireType } from './proto-reader.ts';
import { readTensor, writeTensor } from './proto-tensor.ts';
import {
  type ForwardBackwardRequest,
  type ModelInputChunk,
  type TensorData,
  type WireDatum,
  WireFormatError,
} from './types.ts';

const sortedEntries = <T>(record: Record<string, T>): [string, T][] =>
  Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function encodeForwardBackwardRequest(request: ForwardBackwardRequest): Uint8Array {
  const writer = new BinaryWriter();
  if (request.modelId !== '') writer.tag(1, WireType.LengthDelimited).string(request.modelId);
  if (request.seqId !== undefined && request.seqId !== 0) writer.tag(2, WireType.Varint).int32(request.seqId);
  for (const datum of request.data) {
    writer.tag(3, WireType.LengthDelimited).fork();
    writeDatum(writer, datum);
    writer.join();
  }
  if (request.lossFn !== '') writer.tag(4, WireType.LengthDelimited).string(request.lossFn);
  for (const [key, value] of sortedEntries(request.lossFnConfig)) {
    writer.tag(5, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(key);
    writer.tag(2, WireType.Bit64).double(value);
    writer.join();
  }
  if (request.forwardOnly) writer.tag(6, WireType.Varint).bool(true);
  return writer.finish();
}

function writeDatum(writer: BinaryWriter, datum: WireDatum): void {
  for (const chunk of datum.modelInput) {
    writer.tag(1, WireType.LengthDelimited).fork();
    writeChunk(writer, chunk);
    writer.join();
  }
  for (const [key, tensor] of sortedEntries(datum.lossFnInputs)) {
    writer.tag(2, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(key);
    writer.tag(2, WireType.LengthDelimited).fork();
    writeTensor(writer, tensor);
    writer.join();
    writer.join();
  }
}

function writeChunk(writer: BinaryWriter, chunk: ModelInputChunk): void {
  switch (chunk.type) {
    case 'encoded_text':
      writer.tag(1, WireType.LengthDelimited).fork();
      if (chunk.tokens.length > 0) writer.tag(1, WireType.LengthDelimited).bytes(encodeInt32(chunk.tokens));
      writer.join();
      return;
    case 'image':
      writer.tag(2, WireType.LengthDelimited).fork();
      if (chunk.data.length > 0) writer.tag(1, WireType.LengthDelimited).bytes(chunk.data);
      if (chunk.format !== '') writer.tag(2, WireType.LengthDelimited).string(chunk.format);
      if (chunk.expectedTokens !== undefined) writer.tag(3, WireType.Varint).int32(chunk.expectedTokens);
      writer.join();
      return;
    case 'dmel':
      writer.tag(3, WireType.LengthDelimited).fork();
      if (chunk.dmel.length > 0) writer.tag(1, WireType.LengthDelimited).bytes(chunk.dmel);
      writer.join();
      return;
  }
}

/** Decodes a ForwardBackwardRequest; throws WireFormatError (a UserError) on any malformed input. */
export function decodeForwardBackwardRequest(bytes: Uint8Array): ForwardBackwardRequest {
  // seq_id absent on the wire (proto3 writes no 0) stays undefined: "no order", as in the JSON form.
  const request: ForwardBackwardRequest = {
    modelId: '',
    data: [],
    lossFn: '',
    lossFnConfig: {},
    forwardOnly: false,
  };
  readFields(bytes, 'ForwardBackwardRequest', (fieldNo, wireType, reader) => {
    switch (fieldNo) {
      case 1:
        expectWireType(wireType, WireType.LengthDelimited, 'ForwardBackwardRequest', 'model_id');
        request.modelId = reader.string();
        return true;
      case 2:
        expectWireType(wireType, WireType.Varint, 'ForwardBackwardRequest', 'seq_id');
        request.seqId = reader.int32();
        return true;
      case 3:
        expectWireType(wireType, WireType.LengthDelimited, 'ForwardBackwardRequest', 'data');
        request.data.push(readDatum(reader.bytes(), `data[${request.data.length}]`));
        return true;
      case 4:
        expectWireType(wireType, WireType.LengthDelimited, 'ForwardBackwardRequest', 'loss_fn');
        request.lossFn = reader.string();
        return true;
      case 5: {
        expectWireType(wireType, WireType.LengthDelimited, 'ForwardBackwardRequest', 'loss_fn_config');
        const [key, value] = readMapEntry(
          reader.bytes(),
          'ForwardBackwardRequest.LossFnConfigEntry',
          (valueWireType, entryReader) => {
            expectWireType(valueWireType, WireType.Bit64, 'LossFnConfigEntry', 'value');
            return entryReader.double();
          },
          () => 0,
        );
        request.lossFnConfig[key] = value;
        return true;
      }
      case 6:
        expectWireType(wireType, WireType.Varint, 'ForwardBackwardRequest', 'forward_only');
        request.forwardOnly = reader.bool();
        return true;
      default:
        return false;
    }
  });
  return request;
}

function readDatum(bytes: Uint8Array, where: string): WireDatum {
  const datum: WireDatum = { modelInput: [], lossFnInputs: {} };
  readFields(bytes, 'Datum', (fieldNo, wireType, reader) => {
    if (fieldNo === 1) {
      expectWireType(wireType, WireType.LengthDelimited, 'Datum', 'model_input');
      datum.modelInput.push(readChunk(reader.bytes(), `${where}.model_input[${datum.modelInput.length}]`));
      return true;
    }
    if (fieldNo === 2) {
      expectWireType(wireType, WireType.LengthDelimited, 'Datum', 'loss_fn_inputs');
      const [key, tensor] = readMapEntry<TensorData | undefined>(
        reader.bytes(),
        'Datum.LossFnInputsEntry',
        (valueWireType, entryReader) => {
          expectWireType(valueWireType, WireType.LengthDelimited, 'LossFnInputsEntry', 'value');
          return readTensor(entryReader.bytes(), `${where}.loss_fn_inputs`);
        },
        () => undefined,
      );
      if (tensor === undefined) throw new WireFormatError(`${where}.loss_fn_inputs['${key}'] has no tensor`);
      datum.lossFnInputs[key] = tensor;
      return true;
    }
    return false;
  });
  return datum;
}

function readChunk(bytes: Uint8Array, where: string): ModelInputChunk {
  let chunk: ModelInputChunk | undefined;
  readFields(bytes, 'Chunk', (fieldNo, wireType, reader) => {
    if (fieldNo < 1 || fieldNo > 3) return false;
    expectWireType(wireType, WireType.LengthDelimited, 'Chunk', 'chunk');
    const inner = reader.bytes();
    if (fieldNo === 1) {
      let tokens: number[] = [];
      readFields(inner, 'EncodedTextChunk', (innerField, innerType, innerReader) => {
        if (innerField !== 1) return false;
        expectWireType(innerType, WireType.LengthDelimited, 'EncodedTextChunk', 'tokens');
        tokens = decodeInt32(innerReader.bytes(), `${where}.tokens`);
        return true;
      });
      chunk = { type: 'encoded_text', tokens };
    } else if (fieldNo === 2) {
      const image: ModelInputChunk & { type: 'image' } = {
        type: 'image',
        data: new Uint8Array(0),
        format: '',
      };
      readFields(inner, 'ImageChunk', (innerField, innerType, innerReader) => {
        if (innerField === 1 && innerType === WireType.LengthDelimited) image.data = innerReader.bytes();
        else if (innerField === 2 && innerType === WireType.LengthDelimited)
          image.format = innerReader.string();
        else if (innerField === 3 && innerType === WireType.Varint)
          image.expectedTokens = innerReader.int32();
        else return false;
        return true;
      });
      chunk = image;
    } else {
      let dmel: Uint8Array = new Uint8Array(0);
      readFields(inner, 'DmelChunk', (innerField, innerType, innerReader) => {
        if (innerField !== 1 || innerType !== WireType.LengthDelimited) return false;
        dmel = innerReader.bytes();
        return true;
      });
      chunk = { type: 'dmel', dmel };
    }
    return true;
  });
  if (chunk === undefined)
    throw new WireFormatError(`${where}: empty chunk (no encoded_text, image or dmel)`);
  return chunk;
}
