// The 'kernels' event of a run (kernels-event.ts): recorded at every start, and a resume on the other
// kernel set warns (it is no longer a bit-identical replay).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeKernelStatus } from '../policy/native-kernels.ts';
import { RunStore } from '../runs/run-store.ts';
import { recordKernels } from './kernels-event.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(): RunStore {
  const dir = mkdtempSync(join(tmpdir(), 'kernels-event-'));
  dirs.push(dir);
  return RunStore.create(join(dir, 'run'), { seed: 1 });
}

describe('kernels event', () => {
  it('records the kernel set, and is silent when a resume runs on the same one', () => {
    const run = store();
    const warnings: string[] = [];
    recordKernels(run, (message) => warnings.push(message));
    recordKernels(run, (message) => warnings.push(message));
    const events = run.events().filter((event) => event.kind === 'kernels');
    expect(events).toHaveLength(2);
    expect(events[0].detail).toEqual({
      native: nativeKernelStatus().active,
      reason: nativeKernelStatus().reason,
    });
    expect(warnings).toEqual([]);
    run.close();
  });

  it('warns when the run last ran on the other kernel set', () => {
    const run = store();
    run.event('kernels', { native: !nativeKernelStatus().active, reason: 'another machine' });
    const warnings: string[] = [];
    recordKernels(run, (message) => warnings.push(message));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/not bit-identical/);
    run.close();
  });
});
