import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import {
  isTinkerCheckpoint,
  readTinkerRecord,
  type TinkerCheckpointRecord,
  tinkerRecordFile,
  writeTinkerRecord,
} from './checkpoint-record.ts';

const root = mkdtempSync(join(tmpdir(), 'curricula-tinker-record-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const record: TinkerCheckpointRecord = {
  backend: 'tinker',
  url: 'http://127.0.0.1:8000',
  baseModel: 'curricula/demo',
  modelId: 'model-1',
  path: 'tinker://model-1/weights/curricula-7',
  optimizerSteps: 3,
};

describe('tinker-checkpoint.json', () => {
  it('round-trips, and is recognised as a Tinker checkpoint', () => {
    const dir = join(root, 'ok');
    expect(isTinkerCheckpoint(dir)).toBe(false);
    writeTinkerRecord(dir, record);
    expect(isTinkerCheckpoint(dir)).toBe(true);
    expect(readTinkerRecord(dir, record.url, record.baseModel)).toEqual(record);
  });

  it('refuses a record of another server or base model, naming both', () => {
    const dir = join(root, 'other');
    writeTinkerRecord(dir, record);
    expect(() => readTinkerRecord(dir, 'http://10.0.0.2:8000', record.baseModel)).toThrow(
      /saved on http:\/\/127\.0\.0\.1:8000 \(curricula\/demo\); this run uses http:\/\/10\.0\.0\.2:8000/,
    );
    expect(() => readTinkerRecord(dir, record.url, 'Qwen/Qwen3-8B')).toThrow(ConfigError);
  });

  it.each([
    ['cut JSON', '{"backend": "tinker", "url"', /tinker-checkpoint\.json is unreadable/],
    [
      'a path that is not tinker://',
      JSON.stringify({ ...record, path: '/etc/passwd' }),
      /path is not a tinker:\/\/ path/,
    ],
    ['a missing field', JSON.stringify({ ...record, modelId: undefined }), /modelId/],
  ])('a damaged record (%s) is a ConfigError naming the file, not a crash', (_, text, message) => {
    const dir = join(root, `bad-${Math.abs(text.length)}`);
    writeTinkerRecord(dir, record);
    writeFileSync(join(dir, tinkerRecordFile), text);
    let error: unknown;
    try {
      readTinkerRecord(dir, record.url, record.baseModel);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(dir);
  });
});
