// resumeCheckpoint (checkpoints.ts): with LATEST gone, the newest intact step-* directory, with a notice;
// newer damaged ones are skipped and named; none intact is refused; no checkpoints at all is step 0.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../core/errors.ts';
import { resumeCheckpoint } from './checkpoints.ts';

function checkpoint(dir: string, step: number, state?: string | null): void {
  const path = join(dir, `step-${String(step).padStart(6, '0')}`);
  mkdirSync(join(path, 'model'), { recursive: true });
  if (state !== null)
    writeFileSync(join(path, 'trainer.json'), state ?? JSON.stringify({ step, rng: [1, 2, 3, 4] }));
}

describe('resumeCheckpoint', () => {
  it('follows LATEST when it is there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
    checkpoint(dir, 1);
    checkpoint(dir, 2);
    writeFileSync(join(dir, 'LATEST'), 'step-000001');
    const point = resumeCheckpoint(dir);
    expect(point.checkpoint?.name).toBe('step-000001');
    expect(point.notice).toBeUndefined();
  });

  it('without LATEST: the newest intact one, skipping damaged newer ones, and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
    checkpoint(dir, 1);
    checkpoint(dir, 2);
    checkpoint(dir, 3, 'root:SECRET'); // not JSON
    checkpoint(dir, 4, null); // no trainer.json
    const point = resumeCheckpoint(dir);
    expect(point.checkpoint?.name).toBe('step-000002');
    expect(point.checkpoint?.state.step).toBe(2);
    expect(point.notice).toBe(
      `${join(dir, 'LATEST')} is missing: resuming from the newest intact checkpoint, step-000002 (step 2) (skipped newer damaged step-000004, step-000003)`,
    );
  });

  it('none intact is refused; none at all restarts from step 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
    expect(resumeCheckpoint(dir).checkpoint).toBeNull();
    checkpoint(dir, 1, '{}');
    expect(() => resumeCheckpoint(dir)).toThrow(CheckpointError);
    expect(() => resumeCheckpoint(dir)).toThrow(
      /LATEST is missing and none of the checkpoints .* is intact \(step-000001\)/,
    );
  });
});
