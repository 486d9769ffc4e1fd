import { describe, expect, it } from 'vitest';
import { decodeSafetensors, encodeSafetensors, SafetensorsError } from './safetensors.ts';

/** Builds a file by hand: header JSON (unpadded) + raw bytes. */
function handMade(header: unknown, data: number[]): Uint8Array {
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const out = new Uint8Array(8 + headerBytes.length + 4 * data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  const view = new DataView(out.buffer, 8 + headerBytes.length);
  for (const [i, value] of data.entries()) view.setFloat32(4 * i, value, true);
  return out;
}

describe('safetensors', () => {
  it('writes the documented layout: u64 LE header length, padded JSON header, LE float32 data', () => {
    const bytes = encodeSafetensors(
      new Map([
        ['a', { shape: [2], data: new Float32Array([1, -2]) }],
        ['b', { shape: [1, 1], data: new Float32Array([0.5]) }],
      ]),
      { note: 'x' },
    );
    const view = new DataView(bytes.buffer);
    const headerLength = Number(view.getBigUint64(0, true));
    expect(headerLength % 8).toBe(0);
    const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + headerLength)).toString('utf8'));
    expect(header).toEqual({
      __metadata__: { note: 'x' },
      a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      b: { dtype: 'F32', shape: [1, 1], data_offsets: [8, 12] },
    });
    expect(bytes.length).toBe(8 + headerLength + 12);
    expect(view.getFloat32(8 + headerLength + 4, true)).toBe(-2);
    expect(view.getFloat32(8 + headerLength + 8, true)).toBe(0.5);
  });

  it('round-trips values bit for bit and reads files written by others (unpadded header, any order)', () => {
    const data = new Float32Array([Math.PI, -0, 1e-40, 3.4e38, Number.NaN]);
    const decoded = decodeSafetensors(encodeSafetensors(new Map([['x', { shape: [5], data }]])));
    expect(new Uint32Array(decoded.tensors.get('x')!.data.buffer)).toEqual(new Uint32Array(data.buffer));
    const foreign = handMade(
      {
        second: { dtype: 'F32', shape: [1], data_offsets: [8, 12] },
        first: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      },
      [1, 2, 3],
    );
    const { tensors, metadata } = decodeSafetensors(foreign);
    expect(metadata).toEqual({});
    expect(Array.from(tensors.get('first')!.data)).toEqual([1, 2]);
    expect(Array.from(tensors.get('second')!.data)).toEqual([3]);
  });

  it('rejects truncated and inconsistent files with a clear reason', () => {
    const good = encodeSafetensors(new Map([['x', { shape: [2, 2], data: new Float32Array(4) }]]));
    const fails = (bytes: Uint8Array, pattern: RegExp) => {
      expect(() => decodeSafetensors(bytes)).toThrow(SafetensorsError);
      expect(() => decodeSafetensors(bytes)).toThrow(pattern);
    };
    fails(good.subarray(0, 5), /too short/);
    fails(good.subarray(0, 20), /exceeds the file/);
    fails(
      good.subarray(0, good.length - 1),
      /tensor 'x' ends at byte 16 past the 15-byte data section \(truncated file\?\)/,
    );
    fails(handMade({ x: { dtype: 'F16', shape: [1], data_offsets: [0, 4] } }, [0]), /only F32/);
    fails(
      handMade({ x: { dtype: 'F32', shape: [2], data_offsets: [0, 4] } }, [0]),
      /needs 8 bytes, offsets span 4/,
    );
    fails(
      handMade(
        {
          x: { dtype: 'F32', shape: [1], data_offsets: [0, 4] },
          y: { dtype: 'F32', shape: [1], data_offsets: [0, 4] },
        },
        [0, 0],
      ),
      /starts at byte 0, expected 4/,
    );
    fails(handMade({ x: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, [0, 0]), /tensors cover 4/);
    const badJson = new Uint8Array(good);
    badJson[8] = 0x7a; // '{' → 'z'
    fails(badJson, /not valid UTF-8 JSON/);
    fails(handMade({ __metadata__: { a: 1 } }, []), /__metadata__.a is not a string/);
  });
});
