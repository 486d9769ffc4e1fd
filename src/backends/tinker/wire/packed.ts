// Little-endian packed arrays, the payload of every protobuf `bytes` field that carries numbers in the
// Tinker wire (tinker-wire-sdk-0.25.md §3): token ids are int32, tensors float32 or int64, BatchedTensor
// offsets int64 byte offsets, bfloat16 the upper half of a float32. Decoders check the byte length and
// that int64 values fit a JavaScript number exactly.
import { WireFormatError } from './types.ts';

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function checkLength(bytes: Uint8Array, size: number, what: string): number {
  if (bytes.byteLength % size !== 0) {
    throw new WireFormatError(`${what}: ${bytes.byteLength} bytes is not a multiple of ${size}`);
  }
  return bytes.byteLength / size;
}

export function encodeInt32(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const data = view(bytes);
  values.forEach((value, i) => {
    if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) {
      throw new WireFormatError(`int32 value ${value} at ${i} is not a 32-bit integer`);
    }
    data.setInt32(i * 4, value, true);
  });
  return bytes;
}

export function decodeInt32(bytes: Uint8Array, what: string): number[] {
  const count = checkLength(bytes, 4, what);
  const data = view(bytes);
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) values[i] = data.getInt32(i * 4, true);
  return values;
}

export function encodeFloat32(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const data = view(bytes);
  values.forEach((value, i) => {
    data.setFloat32(i * 4, value, true);
  });
  return bytes;
}

export function decodeFloat32(bytes: Uint8Array, what: string): number[] {
  const count = checkLength(bytes, 4, what);
  const data = view(bytes);
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) values[i] = data.getFloat32(i * 4, true);
  return values;
}

export function encodeInt64(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const data = view(bytes);
  values.forEach((value, i) => {
    if (!Number.isSafeInteger(value))
      throw new WireFormatError(`int64 value ${value} at ${i} is not a safe integer`);
    data.setBigInt64(i * 8, BigInt(value), true);
  });
  return bytes;
}

export function decodeInt64(bytes: Uint8Array, what: string): number[] {
  const count = checkLength(bytes, 8, what);
  const data = view(bytes);
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const value = data.getBigInt64(i * 8, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new WireFormatError(`${what}: int64 value ${value} at ${i} does not fit a JavaScript number`);
    }
    values[i] = Number(value);
  }
  return values;
}

/** bfloat16 (the upper 16 bits of a float32) → numbers. */
export function decodeBfloat16(bytes: Uint8Array, what: string): number[] {
  const count = checkLength(bytes, 2, what);
  const data = view(bytes);
  const scratch = new DataView(new ArrayBuffer(4));
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    scratch.setUint32(0, data.getUint16(i * 2, true) << 16);
    values[i] = scratch.getFloat32(0);
  }
  return values;
}
