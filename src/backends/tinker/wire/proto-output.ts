// tinker_public.ForwardBackwardOutput, one of the two protobuf results of the Tinker wire (the result of a
// forward_backward / forward future, sent by retrieve_future when the client accepts
// application/x-protobuf; tinker-wire-sdk-0.25.md §3):
//   message ForwardBackwardOutput { string loss_fn_output_type = 1; repeated ArrayRecord loss_fn_outputs = 2;
//                                   map<string, double> metrics = 3; }
//   message ArrayRecord { string type_tag = 1; map<string, BatchedTensor> fields = 2; int64 num_datums = 3; }
//   message BatchedTensor { bytes data = 1; bytes offsets = 2; DType dtype = 3; repeated int64 trailing_shape = 4; }
// A BatchedTensor holds one field of every datum: values concatenated, `offsets` the int64 little-endian
// BYTE offsets of each datum's slice (n_datums + 1 entries from 0); datum i's shape is
// [len / ∏trailing, ...trailing]. The encoder writes one ArrayRecord for all datums (as the SDK's
// response_conv.py says v1 servers do); the decoder merges any number of records, as the SDK does.
import { decodeInt64, encodeInt64 } from './packed.ts';
import {
  BinaryWriter,
  expectWireType,
  readFields,
  readInt64,
  readMapEntry,
  readRepeatedVarint,
  WireType,
} from './proto-reader.ts';
import { decodeValues, encodeValues, protoDtypeOf } from './proto-tensor.ts';
import { type ForwardBackwardOutput, type TensorData, WireFormatError } from './types.ts';

const sortedKeys = (record: Record<string, unknown>) => Object.keys(record).sort();

export function encodeForwardBackwardOutput(output: ForwardBackwardOutput): Uint8Array {
  const writer = new BinaryWriter();
  if (output.lossFnOutputType !== '') writer.tag(1, WireType.LengthDelimited).string(output.lossFnOutputType);
  if (output.lossFnOutputs.length > 0) {
    writer.tag(2, WireType.LengthDelimited).fork();
    writeArrayRecord(writer, output.lossFnOutputs, output.lossFnOutputType);
    writer.join();
  }
  for (const key of sortedKeys(output.metrics)) {
    writer.tag(3, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(key);
    writer.tag(2, WireType.Bit64).double(output.metrics[key]);
    writer.join();
  }
  return writer.finish();
}

function writeArrayRecord(writer: BinaryWriter, datums: Record<string, TensorData>[], typeTag: string): void {
  if (typeTag !== '') writer.tag(1, WireType.LengthDelimited).string(typeTag);
  const names = sortedKeys(datums[0]);
  for (const [index, datum] of datums.entries()) {
    const datumNames = sortedKeys(datum);
    if (datumNames.join('\u0000') !== names.join('\u0000')) {
      throw new WireFormatError(
        `loss_fn_outputs[${index}] has fields [${datumNames}], datum 0 has [${names}]`,
      );
    }
  }
  for (const name of names) {
    const tensors = datums.map((datum) => datum[name]);
    const dtype = tensors[0].dtype;
    const trailing = (tensors[0].shape ?? [tensors[0].data.length]).slice(1);
    const chunks: Uint8Array[] = [];
    const offsets = [0];
    for (const [index, tensor] of tensors.entries()) {
      const tensorTrailing = (tensor.shape ?? [tensor.data.length]).slice(1);
      if (tensor.dtype !== dtype || tensorTrailing.join(',') !== trailing.join(',')) {
        throw new WireFormatError(
          `loss_fn_outputs[${index}].${name}: dtype or trailing shape differs from datum 0`,
        );
      }
      const bytes = encodeValues(tensor);
      chunks.push(bytes);
      offsets.push(offsets[offsets.length - 1] + bytes.byteLength);
    }
    const data = new Uint8Array(offsets[offsets.length - 1]);
    chunks.forEach((chunk, i) => {
      data.set(chunk, offsets[i]);
    });
    writer.tag(2, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(name);
    writer.tag(2, WireType.LengthDelimited).fork();
    if (data.byteLength > 0) writer.tag(1, WireType.LengthDelimited).bytes(data);
    writer.tag(2, WireType.LengthDelimited).bytes(encodeInt64(offsets));
    writer.tag(3, WireType.Varint).int32(protoDtypeOf[dtype]);
    if (trailing.length > 0) {
      writer.tag(4, WireType.LengthDelimited).fork();
      for (const size of trailing) writer.int64(size);
      writer.join();
    }
    writer.join();
    writer.join();
  }
  writer.tag(3, WireType.Varint).int64(datums.length);
}

interface BatchedTensor {
  data: Uint8Array;
  offsets: Uint8Array;
  dtype: number;
  trailingShape: number[];
}

export function decodeForwardBackwardOutput(bytes: Uint8Array): ForwardBackwardOutput {
  const output: ForwardBackwardOutput = { lossFnOutputType: '', lossFnOutputs: [], metrics: {} };
  const records: { fields: Record<string, BatchedTensor>; numDatums: number }[] = [];
  readFields(bytes, 'ForwardBackwardOutput', (fieldNo, wireType, reader) => {
    switch (fieldNo) {
      case 1:
        expectWireType(wireType, WireType.LengthDelimited, 'ForwardBackwardOutput', 'loss_fn_output_type');
        output.lossFnOutputType = reader.string();
        return true;
      case 2:
        expectWireType(wireType, WireType.LengthDelimited, 'ForwardBackwardOutput', 'loss_fn_outputs');
        records.push(readArrayRecord(reader.bytes()));
        return true;
      case 3: {
        expectWireType(wireType, WireType.LengthDelimited, 'ForwardBackwardOutput', 'metrics');
        const [key, value] = readMapEntry(
          reader.bytes(),
          'MetricsEntry',
          (valueType, entryReader) => {
            expectWireType(valueType, WireType.Bit64, 'MetricsEntry', 'value');
            return entryReader.double();
          },
          () => 0,
        );
        output.metrics[key] = value;
        return true;
      }
      default:
        return false;
    }
  });
  // Per field, the per-datum tensors of every record in order (the SDK's deserialize_forward_backward_output).
  const perField = new Map<string, TensorData[]>();
  for (const record of records) {
    for (const [name, batched] of Object.entries(record.fields)) {
      const list = perField.get(name) ?? [];
      list.push(...splitBatched(batched, name));
      perField.set(name, list);
    }
  }
  let numDatums = records.reduce((total, record) => total + record.numDatums, 0);
  if (numDatums === 0 && perField.size > 0) numDatums = perField.values().next().value!.length;
  for (let i = 0; i < numDatums; i++) {
    const datum: Record<string, TensorData> = {};
    for (const [name, tensors] of perField) {
      if (tensors[i] === undefined)
        throw new WireFormatError(`loss_fn_outputs: field ${name} has no datum ${i}`);
      datum[name] = tensors[i];
    }
    output.lossFnOutputs.push(datum);
  }
  return output;
}

function readArrayRecord(bytes: Uint8Array): { fields: Record<string, BatchedTensor>; numDatums: number } {
  const record = { fields: {} as Record<string, BatchedTensor>, numDatums: 0 };
  readFields(bytes, 'ArrayRecord', (fieldNo, wireType, reader) => {
    if (fieldNo === 1) {
      expectWireType(wireType, WireType.LengthDelimited, 'ArrayRecord', 'type_tag');
      reader.string();
      return true;
    }
    if (fieldNo === 2) {
      expectWireType(wireType, WireType.LengthDelimited, 'ArrayRecord', 'fields');
      const [name, batched] = readMapEntry<BatchedTensor | undefined>(
        reader.bytes(),
        'ArrayRecord.FieldsEntry',
        (valueType, entryReader) => {
          expectWireType(valueType, WireType.LengthDelimited, 'FieldsEntry', 'value');
          return readBatchedTensor(entryReader.bytes());
        },
        () => undefined,
      );
      if (batched === undefined) throw new WireFormatError(`ArrayRecord field '${name}' has no tensor`);
      record.fields[name] = batched;
      return true;
    }
    if (fieldNo === 3) {
      expectWireType(wireType, WireType.Varint, 'ArrayRecord', 'num_datums');
      record.numDatums = readInt64(reader, 'ArrayRecord.num_datums');
      return true;
    }
    return false;
  });
  return record;
}

function readBatchedTensor(bytes: Uint8Array): BatchedTensor {
  const tensor: BatchedTensor = {
    data: new Uint8Array(0),
    offsets: new Uint8Array(0),
    dtype: 0,
    trailingShape: [],
  };
  readFields(bytes, 'BatchedTensor', (fieldNo, wireType, reader) => {
    switch (fieldNo) {
      case 1:
        expectWireType(wireType, WireType.LengthDelimited, 'BatchedTensor', 'data');
        tensor.data = reader.bytes();
        return true;
      case 2:
        expectWireType(wireType, WireType.LengthDelimited, 'BatchedTensor', 'offsets');
        tensor.offsets = reader.bytes();
        return true;
      case 3:
        expectWireType(wireType, WireType.Varint, 'BatchedTensor', 'dtype');
        tensor.dtype = reader.int32();
        return true;
      case 4:
        readRepeatedVarint(reader, wireType, tensor.trailingShape, 'BatchedTensor.trailing_shape');
        return true;
      default:
        return false;
    }
  });
  return tensor;
}

function splitBatched(batched: BatchedTensor, name: string): TensorData[] {
  const offsets = decodeInt64(batched.offsets, `${name}.offsets`);
  const trailingSize = batched.trailingShape.reduce((product, size) => product * size, 1);
  const tensors: TensorData[] = [];
  for (let i = 0; i + 1 < offsets.length; i++) {
    const start = offsets[i];
    const end = offsets[i + 1];
    if (start < 0 || end < start || end > batched.data.byteLength) {
      throw new WireFormatError(
        `${name}: offsets [${start}, ${end}) outside ${batched.data.byteLength} data bytes`,
      );
    }
    const { data, dtype } = decodeValues(batched.data.subarray(start, end), batched.dtype, name);
    const leading = trailingSize > 0 ? data.length / trailingSize : 0;
    if (!Number.isInteger(leading))
      throw new WireFormatError(`${name}: datum ${i} does not fill its trailing shape`);
    tensors.push({ data, dtype, shape: [leading, ...batched.trailingShape] });
  }
  return tensors;
}
