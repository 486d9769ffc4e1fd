// Hostile programs after legacy AIO, which the outside round of issue 26 found allowed while io_uring was
// denied: io_setup reserves events from the host-wide fs.aio-max-nr (65536 by default), and one program
// reserved all of it, so that the host's own io_setup calls failed while it ran. Each program prints
// `escaped` when it got any AIO context (reward 1 = escape, hostile-helpers.ts); the second test also
// checks from the host, while the programs run, that io_setup still works there.
//
// What stops them: seccomp.ts denies io_setup, io_submit, io_getevents, io_pgetevents, io_cancel and
// io_destroy with EPERM, like io_uring_setup/enter/register.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import { escapes, type HostileCase, runHostile } from '../../testing/rewards/code-tests/hostile-helpers.ts';
import { CodeTestsReward } from './reward.ts';

const sandbox = bubblewrap();
const reward = unlessSkipped(
  sandbox,
  () => new CodeTestsReward({ timeoutMs: 6000, memoryMb: 256, concurrency: 4 }),
);
afterAll(() => reward?.close());

const prelude = `import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def io_setup(events):
    context = ctypes.c_ulong(0)
    if libc.syscall(206, events, ctypes.byref(context)) == 0:
        return context
    return ctypes.get_errno()
`;

const cases: HostileCase[] = [
  {
    name: 'io_setup in a loop until fs.aio-max-nr is used up, then held',
    code: `${prelude}contexts, errors = [], set()
for _ in range(64):
    got = io_setup(4096)
    if isinstance(got, int):
        errors.add(got)
        break
    contexts.append(got)
if contexts:
    print(f"reserved {4096 * len(contexts)} events", file=sys.stderr, flush=True)
    time.sleep(3)
    print("escaped")
else:
    print("refused", sorted(errors))`,
  },
  {
    name: 'io_setup from eight processes at once, one event each, many times',
    code: `${prelude}report_read, report_write = os.pipe()
for _ in range(8):
    if os.fork() == 0:
        got = [io_setup(1) for _ in range(256)]
        made = sum(not isinstance(g, int) for g in got)
        os.write(report_write, f"{made} {sorted({g for g in got if isinstance(g, int)})}\\n".encode())
        time.sleep(3 if made else 0)
        os._exit(0)
reader = os.fdopen(report_read)
lines = [reader.readline().strip() for _ in range(8)]
made = sum(int(line.split(" ", 1)[0]) for line in lines)
print("escaped" if made else "refused " + " ".join(sorted({line.split(" ", 1)[1] for line in lines})))`,
  },
  {
    name: 'io_submit, io_getevents, io_pgetevents, io_cancel, io_destroy on a guessed context',
    code: `${prelude}events = ctypes.create_string_buffer(64)
iocb = ctypes.create_string_buffer(64)
pointer = ctypes.c_void_p(ctypes.addressof(iocb))
calls = {
    "io_submit": (209, 1, 1, ctypes.byref(pointer)),
    "io_getevents": (208, 1, 0, 1, events, None),
    "io_pgetevents": (333, 1, 0, 1, events, None, None),
    "io_cancel": (210, 1, iocb, events),
    "io_destroy": (207, 1),
}
errnos = {}
for name, (nr, *args) in calls.items():
    libc.syscall(nr, *args)
    errnos[name] = ctypes.get_errno()
# EINVAL would mean the kernel looked for the context: the call reached it.
reached = [name for name, errno in errnos.items() if errno != 1]
print("escaped" if reached else "all refused", errnos, file=sys.stderr)
print("escaped" if reached else "all refused")`,
  },
];

/** On the host, for `seconds`: how many of its io_setup(128) calls failed (python ctypes). */
function hostIoSetupFailures(seconds: number): Promise<number> {
  const script = `import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
failed = 0
deadline = time.monotonic() + ${seconds}
while time.monotonic() < deadline:
    context = ctypes.c_ulong(0)
    if libc.syscall(206, 128, ctypes.byref(context)) == 0:
        libc.syscall(207, context)
    else:
        failed += 1
    time.sleep(0.05)
print(failed)`;
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', () => resolve(Number(output.trim())));
  });
}

describe.skipIf(sandbox.skip)(`legacy AIO is denied like io_uring${sandbox.label}`, () => {
  it(`${cases.length} programs after AIO contexts: every call refused with EPERM; the host's io_setup works throughout`, async () => {
    const [reports, hostFailures] = await Promise.all([runHostile(reward, cases), hostIoSetupFailures(5)]);
    expect(escapes(cases, reports)).toEqual([]);
    for (const report of reports) expect(report.tests[0].status).toBe('WA');
    expect(reports[0].tests[0].detail).toContain('refused [1]');
    expect(reports[1].tests[0].detail).toContain('refused [1]');
    expect(reports[2].tests[0].detail).toContain('all refused');
    expect(hostFailures).toBe(0);
  });
});
