// tinker_public.Tensor (a request-side tensor: dense bytes or sparse CSR, dtype, shape) and DType.
//   message Tensor { oneof encoding { bytes dense = 1; SparseCsr sparse_csr = 2; } DType dtype = 3;
//                    repeated int64 shape = 4; }
//   message SparseCsr { bytes values = 1; bytes crow_indices = 2; bytes col_indices = 3; }
// Dense bytes are float32 or int64 little-endian (the SDK's request_conv.py). Sparse CSR (2-D only) is
// expanded to dense here, so the server sees one representation; the encoder always writes dense.
import {
  decodeBfloat16,
  decodeFloat32,
  decodeInt32,
  decodeInt64,
  encodeFloat32,
  encodeInt64,
} from './packed.ts';
import {
  type BinaryReader,
  type BinaryWriter,
  expectWireType,
  readFields,
  readRepeatedVarint,
  WireType,
} from './proto-reader.ts';
import { type TensorData, type TensorDtype, WireFormatError } from './types.ts';

/** tinker_public.DType. */
export const DType = { unspecified: 0, float32: 1, int64: 2, int32: 3, bfloat16: 4 } as const;

export const protoDtypeOf: Record<TensorDtype, number> = { float32: DType.float32, int64: DType.int64 };

/** Decodes packed values of a proto DType; int32 and bfloat16 widen to the public int64 / float32. */
export function decodeValues(
  bytes: Uint8Array,
  dtype: number,
  what: string,
): { data: number[]; dtype: TensorDtype } {
  switch (dtype) {
    case DType.float32:
      return { data: decodeFloat32(bytes, what), dtype: 'float32' };
    case DType.int64:
      return { data: decodeInt64(bytes, what), dtype: 'int64' };
    case DType.int32:
      return { data: decodeInt32(bytes, what), dtype: 'int64' };
    case DType.bfloat16:
      return { data: decodeBfloat16(bytes, what), dtype: 'float32' };
    default:
      throw new WireFormatError(`${what}: unsupported dtype ${dtype}`);
  }
}

export function encodeValues(tensor: TensorData): Uint8Array {
  return tensor.dtype === 'int64' ? encodeInt64(tensor.data) : encodeFloat32(tensor.data);
}

export function writeTensor(writer: BinaryWriter, tensor: TensorData): void {
  // `dense` is a oneof member, so it is written even when empty (it says which encoding is set).
  writer.tag(1, WireType.LengthDelimited).bytes(encodeValues(tensor));
  writer.tag(3, WireType.Varint).int32(protoDtypeOf[tensor.dtype]);
  if (tensor.shape && tensor.shape.length > 0) {
    writer.tag(4, WireType.LengthDelimited).fork();
    for (const size of tensor.shape) writer.int64(size);
    writer.join();
  }
}

export function readTensor(bytes: Uint8Array, where: string): TensorData {
  let dense: Uint8Array | undefined;
  let sparse: { values: Uint8Array; crow: Uint8Array; col: Uint8Array } | undefined;
  let dtype = 0;
  const shape: number[] = [];
  readFields(bytes, 'Tensor', (fieldNo, wireType, reader: BinaryReader) => {
    switch (fieldNo) {
      case 1:
        expectWireType(wireType, WireType.LengthDelimited, 'Tensor', 'dense');
        dense = reader.bytes();
        sparse = undefined;
        return true;
      case 2:
        expectWireType(wireType, WireType.LengthDelimited, 'Tensor', 'sparse_csr');
        sparse = readSparse(reader.bytes());
        dense = undefined;
        return true;
      case 3:
        expectWireType(wireType, WireType.Varint, 'Tensor', 'dtype');
        dtype = reader.int32();
        return true;
      case 4:
        readRepeatedVarint(reader, wireType, shape, `${where}.shape`);
        return true;
      default:
        return false;
    }
  });
  if (dtype === DType.unspecified) throw new WireFormatError(`${where}: tensor without a dtype`);
  if (sparse) return sparseToDense(sparse, dtype, shape, where);
  const { data, dtype: publicDtype } = decodeValues(dense ?? new Uint8Array(0), dtype, where);
  if (shape.length > 0) {
    const size = shape.reduce((product, dimension) => product * dimension, 1);
    if (size !== data.length) {
      throw new WireFormatError(
        `${where}: shape [${shape.join(', ')}] holds ${size} values, data has ${data.length}`,
      );
    }
  }
  return { data, dtype: publicDtype, shape: shape.length > 0 ? shape : [data.length] };
}

function readSparse(bytes: Uint8Array): { values: Uint8Array; crow: Uint8Array; col: Uint8Array } {
  const parts: { values: Uint8Array; crow: Uint8Array; col: Uint8Array } = {
    values: new Uint8Array(0),
    crow: new Uint8Array(0),
    col: new Uint8Array(0),
  };
  readFields(bytes, 'SparseCsr', (fieldNo, wireType, reader) => {
    const name = (['values', 'crow', 'col'] as const)[fieldNo - 1];
    if (name === undefined) return false;
    expectWireType(wireType, WireType.LengthDelimited, 'SparseCsr', name);
    parts[name] = reader.bytes();
    return true;
  });
  return parts;
}

function sparseToDense(
  sparse: { values: Uint8Array; crow: Uint8Array; col: Uint8Array },
  dtype: number,
  shape: number[],
  where: string,
): TensorData {
  if (shape.length !== 2) throw new WireFormatError(`${where}: a sparse CSR tensor needs a 2-D shape`);
  const [rows, columns] = shape;
  const { data: values, dtype: publicDtype } = decodeValues(sparse.values, dtype, where);
  const crow = decodeInt64(sparse.crow, `${where}.crow_indices`);
  const col = decodeInt64(sparse.col, `${where}.col_indices`);
  if (crow.length !== rows + 1 || col.length !== values.length || crow[rows] !== values.length) {
    throw new WireFormatError(`${where}: inconsistent sparse CSR indices`);
  }
  const dense = new Array<number>(rows * columns).fill(0);
  for (let row = 0; row < rows; row++) {
    if (crow[row] > crow[row + 1]) throw new WireFormatError(`${where}: crow_indices decrease at row ${row}`);
    for (let k = crow[row]; k < crow[row + 1]; k++) {
      if (col[k] < 0 || col[k] >= columns)
        throw new WireFormatError(`${where}: column ${col[k]} out of range`);
      dense[row * columns + col[k]] = values[k];
    }
  }
  return { data: dense, dtype: publicDtype, shape };
}
