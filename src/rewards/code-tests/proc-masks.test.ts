// The bwrap arguments that hide /proc's host-wide counters (sandbox.ts procMasks, host-binds.ts
// staticProcStat), without running bwrap: which entries are covered, and that /proc/stat's stand-in keeps
// the host's cpu lines with every counter 0 and is written again when something removes it.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { procMasks } from './sandbox.ts';

const statSource = (args: string[]) => args[args.indexOf('/proc/stat') - 1];

describe.skipIf(!existsSync('/proc/stat'))('procMasks', () => {
  it('hides the host-wide counters; /proc/stat keeps only its cpu lines, zeroed', () => {
    const args = procMasks();
    for (const name of ['loadavg', 'meminfo', 'vmstat', 'uptime']) {
      if (existsSync(`/proc/${name}`)) expect(args.join(' ')).toContain(`--dev-bind /dev/null /proc/${name}`);
    }
    expect(args.join(' ')).toContain('--tmpfs /proc/sys --remount-ro /proc/sys');
    const stat = readFileSync(statSource(args), 'utf8');
    const hostCpus = readFileSync('/proc/stat', 'utf8').match(/^cpu\d+ /gm) ?? [];
    expect(stat.match(/^cpu\d+ /gm)).toEqual(hostCpus);
    expect(stat).toMatch(/^cpu 0 0 0/);
    expect(stat.replace(/cpu\d*/g, '').replace('procs_running 1', '')).not.toMatch(/[1-9]/);
  });

  it('writes the /proc/stat stand-in again when it was removed', () => {
    const first = statSource(procMasks());
    rmSync(first);
    const again = statSource(procMasks());
    expect(existsSync(again)).toBe(true);
  });
});
