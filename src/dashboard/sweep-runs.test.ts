// The dashboard over a `curricula sweep` directory lists the sweep's runs, not its logs/ and compare/
// folders; elsewhere a folder of those names is listed (as not a run) as before.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../runs/run-store.ts';
import { listRuns } from './run-list.ts';

function sweepDirectory(withQueue: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'dash-sweep-'));
  for (const name of ['uniform-s1', 'sec-s1']) RunStore.create(join(dir, name), { name }).close();
  mkdirSync(join(dir, 'logs'));
  mkdirSync(join(dir, 'compare'));
  if (withQueue) writeFileSync(join(dir, 'sweep.json'), '{}\n');
  return dir;
}

describe('dashboard run list of a sweep', () => {
  it("lists a sweep's runs only", () => {
    expect(listRuns(sweepDirectory(true)).map((row) => row.name)).toEqual(['sec-s1', 'uniform-s1']);
  });

  it('without a sweep queue, logs/ and compare/ are listed as not runs', () => {
    const rows = listRuns(sweepDirectory(false));
    expect(rows.map((row) => [row.name, row.status === 'unreadable'])).toEqual([
      ['compare', true],
      ['logs', true],
      ['sec-s1', false],
      ['uniform-s1', false],
    ]);
  });
});
