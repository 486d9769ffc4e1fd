// Hostile programs after memory the limits do not see, and after time. The memory limit here is 64 MiB,
// so the watchdog kills a sandbox whose processes together hold more than 192 MiB resident; each program
// tries to hold 256 MiB somewhere the per-process rlimits and the resident-set watchdog cannot see (memfd
// files, unix and TCP socket buffers, SysV shared memory, pipe buffers, the tmpfs mounts, shared anonymous
// mappings spread over processes), keeps it for a second, and only then prints `escaped` (reward 1 =
// escape, hostile-helpers.ts). The time programs print `escaped` only if they outlive the wall clock.
//
// What stops them: the seccomp filter denies memfd_create, socket/socketpair, SysV IPC and F_SETPIPE_SZ
// (seccomp.ts); the tmpfs mounts are size-capped; shared mappings are resident and so seen by the
// watchdog. Residual: pipe buffers are bounded only by the open-file and process limits and the kernel's
// per-user pipe quota (pipe-user-pages-soft, 64 MiB by default), not by memoryMb.
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import {
  escapes,
  type HostileCase,
  memoryPrelude,
  runHostile,
} from '../../testing/rewards/code-tests/hostile-helpers.ts';
import { CodeTestsReward } from './reward.ts';

// A generous time limit, so that an attack that works has time to say so instead of ending as a timeout.
const sandbox = bubblewrap();
const memoryReward = unlessSkipped(
  sandbox,
  () => new CodeTestsReward({ timeoutMs: 10_000, memoryMb: 64, concurrency: 4 }),
);
const timeReward = unlessSkipped(
  sandbox,
  () => new CodeTestsReward({ timeoutMs: 1500, memoryMb: 256, concurrency: 4 }),
);
afterAll(() => Promise.all([memoryReward?.close(), timeReward?.close()]));

const mib = 1 << 20;
const target = 256 * mib;
// `held(n)` records progress; `done()` keeps the memory a second (the watchdog polls every 100 ms), then
// prints `escaped` if the target was reached.
const prelude = memoryPrelude(target);

const memoryCases: HostileCase[] = [
  {
    name: 'many memfd files written to (each under RLIMIT_FSIZE), descriptors kept',
    code: `${prelude}keep = []
try:
    while held < ${target}:
        fd = os.memfd_create("hog")
        keep.append(fd)
        for _ in range(8):
            held += os.write(fd, b"x" * ${mib})
except OSError as error:
    done(error)
done()`,
  },
  {
    name: 'memfd files grown with ftruncate and filled through a mapping that is then unmapped',
    code: `${prelude}import mmap
keep = []
try:
    while held < ${target}:
        fd = os.memfd_create("hog")
        os.ftruncate(fd, ${8 * mib})
        with mmap.mmap(fd, ${8 * mib}) as view:
            for offset in range(0, ${8 * mib}, 4096):
                view[offset] = 1
        keep.append(fd)
        held += ${8 * mib}
except OSError as error:
    done(error)
done()`,
  },
  {
    name: 'unix socketpair buffers filled and never read',
    code: `${prelude}import socket
keep = []
try:
    while held < ${target} and len(keep) < 60:
        a, b = socket.socketpair()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, ${16 * mib})
        b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, ${16 * mib})
        a.setblocking(False)
        try:
            while True:
                held += a.send(b"x" * 65536)
        except BlockingIOError:
            pass
        keep.append((a, b))
except OSError as error:
    done(error)
done()`,
  },
  {
    name: 'TCP loopback buffers filled and never read',
    code: `${prelude}import socket
keep = []
try:
    server = socket.socket()
    server.bind(("127.0.0.1", 0)); server.listen(64)
    while held < ${target} and len(keep) < 40:
        a = socket.socket()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, ${16 * mib})
        a.connect(server.getsockname())
        b, _ = server.accept()
        b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, ${16 * mib})
        a.setblocking(False)
        try:
            while True:
                held += a.send(b"x" * 65536)
        except BlockingIOError:
            pass
        keep.append((a, b))
except OSError as error:
    done(error)
done()`,
  },
  {
    name: 'SysV shared memory segments filled, detached and left',
    code: `${prelude}import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
while held < ${target}:
    segment = libc.shmget(0, ${32 * mib}, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if segment < 0:
        done(f"shmget errno {ctypes.get_errno()}")
    address = libc.shmat(segment, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        done(f"shmat errno {ctypes.get_errno()}")
    ctypes.memset(address, 1, ${32 * mib})
    libc.shmdt(address)
    held += ${32 * mib}
done()`,
  },
  {
    name: 'pipe buffers enlarged with F_SETPIPE_SZ and filled, in six processes',
    code: `${prelude}import fcntl
report_read, report_write = os.pipe()
children = 6
for _ in range(children):
    if os.fork() == 0:
        mine, keep = 0, []
        for _ in range(60):
            try:
                a, b = os.pipe()
            except OSError:
                break
            try:
                fcntl.fcntl(b, 1031, ${mib})  # F_SETPIPE_SZ
            except OSError:
                pass
            os.set_blocking(b, False)
            try:
                while True:
                    mine += os.write(b, b"x" * 65536)
            except BlockingIOError:
                pass
            keep.append((a, b))
        os.write(report_write, f"{mine}\\n".encode())
        time.sleep(30)
        os._exit(0)
reports = os.fdopen(report_read)
held = sum(int(reports.readline()) for _ in range(children))
done()`,
  },
  {
    name: 'the tmpfs mounts (/work, /tmp, /dev/shm) filled with files',
    code: `${prelude}for directory in ("/work", "/tmp", "/dev/shm"):
    for index in range(64):
        try:
            with open(f"{directory}/fill{index}", "wb") as f:
                for _ in range(8):
                    f.write(b"x" * ${mib}); f.flush()
                    held += ${mib}
        except OSError:
            break
done()`,
  },
  {
    name: 'shared anonymous mappings spread over twelve processes (each under RLIMIT_AS)',
    code: `${prelude}import mmap
report_read, report_write = os.pipe()
children = 12
for _ in range(children):
    if os.fork() == 0:
        mine = 0
        try:
            view = mmap.mmap(-1, ${24 * mib}, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
            for offset in range(0, ${24 * mib}, 4096):
                view[offset] = 1
            mine = ${24 * mib}
        finally:
            os.write(report_write, f"{mine}\\n".encode())
        time.sleep(30)
        os._exit(0)
reports = os.fdopen(report_read)
held = sum(int(reports.readline()) for _ in range(children))
done()`,
  },
];

const timeCases: HostileCase[] = [
  {
    name: 'sleeps past the limit',
    code: 'import time\ntime.sleep(5)\nprint("escaped")',
  },
  {
    name: 'ignores SIGXCPU and spins',
    code: 'import signal, time\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nstart = time.time()\nwhile time.time() - start < 5:\n    pass\nprint("escaped")',
  },
  {
    name: 'eight spinning processes',
    code: 'import os, time\nfor _ in range(8):\n    if os.fork() == 0:\n        while True:\n            pass\ntime.sleep(5)\nprint("escaped")',
  },
  {
    name: 'node: spawns children in a loop (stdio ignored), then waits',
    language: 'javascript',
    code: `const { spawn } = require('child_process');
let made = 0;
for (let i = 0; i < 500; i++) { try { spawn('/usr/bin/sleep', ['30'], { stdio: 'ignore' }); made++; } catch {} }
setTimeout(() => console.log('escaped'), 5000);`,
  },
];

describe.skipIf(sandbox.skip)(`memory the limits do not see, and time${sandbox.label}`, () => {
  it(`${memoryCases.length} programs try to hold 256 MiB under a 64 MiB limit: none does`, async () => {
    const reports = await runHostile(memoryReward, memoryCases);
    expect(escapes(memoryCases, reports)).toEqual([]);
    for (const report of reports) {
      expect(report.tests[0].status).not.toBe('TLE');
      expect(report.tests[0].wallMs).toBeLessThan(8000);
    }
    // The shared mappings are resident, so the watchdog sees them.
    expect(reports[7].tests[0].status).toBe('MLE');
  });

  it(`${timeCases.length} programs try to outlive the wall clock: all are killed at it`, async () => {
    const reports = await runHostile(timeReward, timeCases);
    expect(escapes(timeCases, reports)).toEqual([]);
    for (const report of reports) {
      expect(report.tests[0].status).toMatch(/TLE|RE/);
      expect(report.tests[0].wallMs).toBeLessThan(4000);
    }
  });
});
