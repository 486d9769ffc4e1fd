import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../run-store.ts';
import { writeReport } from './write-report.ts';

// writeFileAtomic, with a switch to make the Nth call from now on fail (a crash in the middle of writing).
const failure = vi.hoisted(() => ({ callsLeft: Number.POSITIVE_INFINITY }));
vi.mock('../../core/durable-files.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/durable-files.ts')>();
  return {
    ...original,
    writeFileAtomic: (path: string, data: string | Uint8Array) => {
      if (--failure.callsLeft <= 0) throw new Error(`simulated crash writing ${path}`);
      original.writeFileAtomic(path, data);
    },
  };
});

afterEach(() => {
  failure.callsLeft = Number.POSITIVE_INFINITY;
});

/** A pretrain-like run: training loss every step, one evaluation at the last step (none at step 0). */
function pretrainRun(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'report-')), 'pretrain');
  const store = RunStore.create(dir, { name: 'pretrain', train: { steps: 3 } });
  for (let step = 1; step <= 3; step++) {
    store.logMetrics(step, {
      'train/loss': 3 / step,
      'train/lr': 1e-3,
      ...(step === 3 ? { 'eval/pass@1/addition/1': 0.5, 'eval/pass@1': 0.5 } : {}),
    });
  }
  store.close();
  return dir;
}

describe('writeReport', () => {
  it('reports a pretrain run: loss and pass@1 plots only, and says there was no step-0 evaluation', async () => {
    const dir = pretrainRun();
    const written = await writeReport(dir);
    expect(readdirSync(written.reportDir).sort()).toEqual(['pass-at-1.svg', 'report.md', 'train-loss.svg']);
    expect(readFileSync(join(written.reportDir, 'train-loss.svg'), 'utf8')).toContain('>train/loss</text>');
    expect(written.markdown).toContain('- **Kind:** pretraining / SFT');
    expect(written.markdown).toContain('- **Steps:** 3 of 3 — not finished');
    expect(written.markdown).toContain('_No evaluation at step 0 (before training) was logged');
    expect(written.markdown).toContain('| addition | 1 | — | 0.500 | — |');
    expect(written.markdown).toContain('_No completions were logged at the last step._');
  });

  it('replaces the previous report whole and removes what a crashed writer left', async () => {
    const dir = pretrainRun();
    mkdirSync(join(dir, 'report'));
    writeFileSync(join(dir, 'report', 'stale.svg'), '<svg/>');
    // A staging directory of a writer that died (pid 2^22 + 1 is above Linux's pid_max).
    mkdirSync(join(dir, '.report-staging-4194305-1'));
    writeFileSync(join(dir, '.report-staging-4194305-1', 'report.md'), 'half');
    await writeReport(dir);
    expect(readdirSync(join(dir, 'report')).sort()).toEqual(['pass-at-1.svg', 'report.md', 'train-loss.svg']);
    expect(readdirSync(dir).filter((name) => name.startsWith('.report-'))).toEqual([]);
  });

  it('leaves the previous complete report in place when writing fails midway', async () => {
    const dir = pretrainRun();
    const first = await writeReport(dir);
    const before = readFileSync(first.reportPath, 'utf8');
    failure.callsLeft = 2; // the first SVG is written, the second write fails
    await expect(writeReport(dir)).rejects.toThrow(/simulated crash/);
    expect(readFileSync(first.reportPath, 'utf8')).toBe(before);
    expect(readdirSync(first.reportDir).sort()).toEqual(['pass-at-1.svg', 'report.md', 'train-loss.svg']);
    expect(readdirSync(dir).filter((name) => name.startsWith('.report-'))).toEqual([]);
  });

  it('draws a report while the run is still being written (read-only, no lock)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'report-')), 'live');
    const store = RunStore.create(dir, { train: { steps: 100 } });
    try {
      store.logMetrics(1, { 'reward/mean': 0.25 });
      store.logMetrics(2, { 'reward/mean': 0.5 });
      const written = await writeReport(dir);
      expect(written.markdown).toContain('- **Steps:** 2 of 100 — not finished');
      expect(written.markdown).toContain('| reward/mean | 0.5000 | 2 |');
      store.logMetrics(3, { 'reward/mean': 0.75 }); // the writer carries on
    } finally {
      store.close();
    }
  });

  it('refuses a directory that is not a run with a UserError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'not-a-run-'));
    await expect(writeReport(dir)).rejects.toThrow(/is not a run directory/);
    expect(existsSync(join(dir, 'report'))).toBe(false);
  });
});
