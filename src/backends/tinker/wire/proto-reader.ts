// Small helpers over @bufbuild/protobuf's BinaryReader for hand-written message decoders (no protoc or
// generated code is available here): a field loop that checks each field's wire type, accepts packed and
// unpacked repeated scalars, skips unknown fields (forward compatibility, as protobuf requires) and turns
// every low-level failure (truncated varint, bad wire type, length past the end) into one WireFormatError
// naming the message.
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { WireFormatError } from './types.ts';

export { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

/** Calls `onField(fieldNo, wireType, reader)` for every field; the callback must consume the field or return false. */
export function readFields(
  bytes: Uint8Array,
  message: string,
  onField: (fieldNo: number, wireType: WireType, reader: BinaryReader) => boolean,
): void {
  const reader = new BinaryReader(bytes);
  try {
    while (reader.pos < reader.len) {
      const [fieldNo, wireType] = reader.tag();
      if (!onField(fieldNo, wireType, reader)) reader.skip(wireType, fieldNo);
    }
  } catch (error) {
    if (error instanceof WireFormatError) throw error;
    throw new WireFormatError(`malformed protobuf ${message}: ${(error as Error).message}`);
  }
}

/** Throws unless the field has the wire type its schema declares. */
export function expectWireType(actual: WireType, expected: WireType, message: string, field: string): void {
  if (actual !== expected) {
    throw new WireFormatError(
      `malformed protobuf ${message}.${field}: wire type ${actual}, expected ${expected}`,
    );
  }
}

/** Reads a repeated integer field (int64/int32/uint32 varints), packed or not, appending to `into`. */
export function readRepeatedVarint(
  reader: BinaryReader,
  wireType: WireType,
  into: number[],
  where: string,
): void {
  const readOne = () => {
    const value = reader.int64();
    const number = Number(value);
    if (!Number.isSafeInteger(number)) throw new WireFormatError(`${where}: value ${value} is too large`);
    into.push(number);
  };
  if (wireType === WireType.LengthDelimited) {
    const end = reader.uint32() + reader.pos;
    if (end > reader.len) throw new WireFormatError(`${where}: packed field runs past the end`);
    while (reader.pos < end) readOne();
  } else if (wireType === WireType.Varint) {
    readOne();
  } else {
    throw new WireFormatError(`${where}: wire type ${wireType} for a repeated integer`);
  }
}

/** A safe integer from an int64 varint. */
export function readInt64(reader: BinaryReader, where: string): number {
  const value = reader.int64();
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new WireFormatError(`${where}: value ${value} is too large`);
  return number;
}

/** Decodes a map entry message {1: string key, 2: value}; `readValue` reads field 2. */
export function readMapEntry<T>(
  bytes: Uint8Array,
  message: string,
  readValue: (wireType: WireType, reader: BinaryReader) => T,
  defaultValue: () => T,
): [string, T] {
  let key = '';
  let value: T | undefined;
  readFields(bytes, message, (fieldNo, wireType, reader) => {
    if (fieldNo === 1) {
      expectWireType(wireType, WireType.LengthDelimited, message, 'key');
      key = reader.string();
      return true;
    }
    if (fieldNo === 2) {
      value = readValue(wireType, reader);
      return true;
    }
    return false;
  });
  return [key, value === undefined ? defaultValue() : value];
}
