// The safetensors file format (huggingface/safetensors), float32 only, written and read without a
// dependency:
//
//   [8 bytes: header length N, unsigned little-endian] [N bytes: UTF-8 JSON header] [raw tensor bytes]
//
// The header maps each tensor name to {dtype: 'F32', shape, data_offsets: [begin, end]} (offsets relative
// to the start of the data section) and may hold `__metadata__`, a string → string map. Writers pad the
// header with spaces to a multiple of 8 bytes so the data is aligned. Data is little-endian.
//
// Reading validates everything (sizes, JSON, dtypes, shapes against offsets, overlaps, trailing bytes)
// and reports the first problem as a SafetensorsError naming what is wrong.

export class SafetensorsError extends Error {
  override name = 'SafetensorsError';
}

export interface NamedTensor {
  shape: number[];
  data: Float32Array;
}

export interface SafetensorsContents {
  tensors: Map<string, NamedTensor>;
  metadata: Record<string, string>;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Header size limit (as in the reference implementation: 100 MB). */
const maxHeaderBytes = 100_000_000;

/** Serialises tensors (in the map's order) and metadata to safetensors bytes. */
export function encodeSafetensors(
  tensors: ReadonlyMap<string, NamedTensor>,
  metadata: Record<string, string> = {},
): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let offset = 0;
  for (const [name, tensor] of tensors) {
    if (name === '__metadata__') throw new SafetensorsError('a tensor may not be named __metadata__');
    const size = elementCount(tensor.shape);
    if (size !== tensor.data.length) {
      throw new SafetensorsError(
        `tensor '${name}': shape [${tensor.shape}] needs ${size} values, got ${tensor.data.length}`,
      );
    }
    header[name] = { dtype: 'F32', shape: tensor.shape, data_offsets: [offset, offset + 4 * size] };
    offset += 4 * size;
  }
  let headerText = JSON.stringify(header);
  const headerBytesUnpadded = Buffer.byteLength(headerText, 'utf8');
  headerText += ' '.repeat((8 - (headerBytesUnpadded % 8)) % 8);
  const headerBytes = Buffer.from(headerText, 'utf8');
  const out = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let position = 8 + headerBytes.length;
  for (const tensor of tensors.values()) {
    const bytes = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    if (littleEndian) {
      out.set(bytes, position);
    } else {
      for (let i = 0; i < tensor.data.length; i++) view.setFloat32(position + 4 * i, tensor.data[i], true);
    }
    position += 4 * tensor.data.length;
  }
  return out;
}

/** Parses safetensors bytes; throws SafetensorsError on any inconsistency. Tensor order = header order. */
export function decodeSafetensors(bytes: Uint8Array): SafetensorsContents {
  if (bytes.length < 8)
    throw new SafetensorsError(`file is ${bytes.length} bytes, too short for a header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getBigUint64(0, true);
  if (headerLength > BigInt(Math.min(maxHeaderBytes, bytes.length - 8))) {
    throw new SafetensorsError(
      `header length ${headerLength} exceeds the file (${bytes.length} bytes; truncated?)`,
    );
  }
  const dataStart = 8 + Number(headerLength);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, dataStart)));
  } catch (error) {
    throw new SafetensorsError(`header is not valid UTF-8 JSON (${(error as Error).message})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new SafetensorsError('header is not a JSON object');
  }
  const dataLength = bytes.length - dataStart;
  const metadata: Record<string, string> = {};
  const entries: { name: string; shape: number[]; begin: number; end: number }[] = [];
  for (const [name, entry] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        throw new SafetensorsError('__metadata__ is not an object');
      }
      for (const [key, value] of Object.entries(entry)) {
        if (typeof value !== 'string') throw new SafetensorsError(`__metadata__.${key} is not a string`);
        metadata[key] = value;
      }
      continue;
    }
    entries.push({ name, ...parseEntry(name, entry, dataLength) });
  }
  // Offsets must tile the data section exactly: sorted, contiguous, no gaps or overlaps, no trailing bytes.
  const sorted = [...entries].sort((a, b) => a.begin - b.begin);
  let expectedBegin = 0;
  for (const entry of sorted) {
    if (entry.begin !== expectedBegin) {
      throw new SafetensorsError(
        `tensor '${entry.name}' starts at byte ${entry.begin}, expected ${expectedBegin}`,
      );
    }
    expectedBegin = entry.end;
  }
  if (expectedBegin !== dataLength) {
    throw new SafetensorsError(`data section is ${dataLength} bytes but tensors cover ${expectedBegin}`);
  }
  const tensors = new Map<string, NamedTensor>();
  for (const entry of entries) {
    const count = (entry.end - entry.begin) / 4;
    const data = new Float32Array(count);
    const base = dataStart + entry.begin;
    if (littleEndian) {
      new Uint8Array(data.buffer).set(bytes.subarray(base, base + 4 * count));
    } else {
      for (let i = 0; i < count; i++) data[i] = view.getFloat32(base + 4 * i, true);
    }
    tensors.set(entry.name, { shape: entry.shape, data });
  }
  return { tensors, metadata };
}

function parseEntry(
  name: string,
  entry: unknown,
  dataLength: number,
): { shape: number[]; begin: number; end: number } {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new SafetensorsError(`tensor '${name}': header entry is not an object`);
  }
  const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
  if (dtype !== 'F32')
    throw new SafetensorsError(`tensor '${name}': dtype ${JSON.stringify(dtype)}, only F32 is supported`);
  if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new SafetensorsError(`tensor '${name}': shape ${JSON.stringify(shape)} is not a list of sizes`);
  }
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((n) => Number.isSafeInteger(n) && n >= 0) ||
    offsets[1] < offsets[0]
  ) {
    throw new SafetensorsError(
      `tensor '${name}': data_offsets ${JSON.stringify(offsets)} are not [begin, end]`,
    );
  }
  if (offsets[1] > dataLength) {
    throw new SafetensorsError(
      `tensor '${name}' ends at byte ${offsets[1]} past the ${dataLength}-byte data section (truncated file?)`,
    );
  }
  const [begin, end] = offsets as [number, number];
  if (end - begin !== 4 * elementCount(shape)) {
    throw new SafetensorsError(
      `tensor '${name}': shape [${shape}] needs ${4 * elementCount(shape)} bytes, offsets span ${end - begin}`,
    );
  }
  return { shape: shape as number[], begin, end };
}

function elementCount(shape: readonly number[]): number {
  return shape.reduce((product, n) => product * n, 1);
}
