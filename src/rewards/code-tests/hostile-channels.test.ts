// Hostile programs that let two sandboxes running at the same time talk to each other. They run in
// separate sandboxes that all see the same read-only /usr inodes, so anything the kernel keeps per inode
// and shows to other processes is a channel: file locks (flock, POSIX byte-range, OFD) and change
// notification (inotify, dnotify). Since issue 26 the tests of one answer run one after another
// (reward.ts), so the sender and the receiver here are two different answers, `send` and `receive`, run
// concurrently; the receiver prints `escaped` only when it observes the sender (reward 1 = escape,
// hostile-helpers.ts). The seccomp filter (seccomp.ts) denies the lock and notification calls.
//
// Not covered here, because a syscall filter does not close them: timing (CPU contention), page-cache
// residency and per-uid counters shared by concurrent sandboxes (docs/rewards/code-tests.md).
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import { escapes, type HostileCase, runHostile } from '../../testing/rewards/code-tests/hostile-helpers.ts';
import { CodeTestsReward } from './reward.ts';

// The sender holds its signal for `holdSeconds`; the receiver watches for as long, and both start at once.
const holdSeconds = 3;

// Each case uses its own /usr file or directory so that the cases cannot see each other.
const prelude = `import os, sys, time, glob, struct, fcntl
role = sys.stdin.read().strip()
python_lib = sorted(glob.glob("/usr/lib/python3.*/"))[0]
def until(seconds, check):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            print("escaped")
            sys.exit(0)
        time.sleep(0.02)
    print("nothing seen")
def hold(seconds):
    time.sleep(seconds)
    print("sent")
`;

// struct flock on x86_64: short l_type, short l_whence, off_t l_start, off_t l_len, pid_t l_pid (32 bytes).
const flock = `def lock_query(fd, command, start):
    request = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
    try:
        answer = fcntl.fcntl(fd, command, request)
    except OSError:
        return False
    kind, _, found_start, _, _ = struct.unpack("hhqqi4x", answer)
    return kind != fcntl.F_UNLCK and found_start == start
def lock_take(fd, command, start):
    try:
        fcntl.fcntl(fd, command, struct.pack("hhqqi4x", fcntl.F_RDLCK, os.SEEK_SET, start, 1, 0))
    except OSError as error:
        print("lock failed", error)
`;

const cases: HostileCase[] = [
  {
    name: 'POSIX byte-range lock (F_SETLK / F_GETLK) on a /usr file',
    inputs: ['send', 'receive'],
    code: `${prelude}${flock}fd = os.open(python_lib + "abc.py", os.O_RDONLY)
if role == "send":
    lock_take(fd, fcntl.F_SETLK, 4242); hold(${holdSeconds})
else:
    until(${holdSeconds}, lambda: lock_query(fd, fcntl.F_GETLK, 4242))`,
  },
  {
    name: 'open-file-description lock (F_OFD_SETLK / F_OFD_GETLK)',
    inputs: ['send', 'receive'],
    code: `${prelude}${flock}fd = os.open(python_lib + "aifc.py", os.O_RDONLY)
F_OFD_GETLK, F_OFD_SETLK = 36, 37
if role == "send":
    lock_take(fd, F_OFD_SETLK, 4343); hold(${holdSeconds})
else:
    until(${holdSeconds}, lambda: lock_query(fd, F_OFD_GETLK, 4343))`,
  },
  {
    name: 'flock on a /usr file (held shared; the receiver probes exclusive)',
    inputs: ['send', 'receive'],
    code: `${prelude}fd = os.open(python_lib + "antigravity.py", os.O_RDONLY)
def busy():
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False
if role == "send":
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError as error:
        print("flock failed", error)
    hold(${holdSeconds})
else:
    until(${holdSeconds}, busy)`,
  },
  {
    name: 'inotify watch on a /usr directory the sender opens files in',
    inputs: ['send', 'receive'],
    code: `${prelude}import ctypes, select
directory = python_lib + "wsgiref"
if role == "send":
    deadline = time.monotonic() + ${holdSeconds}
    while time.monotonic() < deadline:
        os.close(os.open(directory + "/headers.py", os.O_RDONLY)); time.sleep(0.01)
    print("sent")
else:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, directory.encode(), 0x20 | 0x1) < 0:  # IN_OPEN | IN_ACCESS
        print("no inotify", ctypes.get_errno()); sys.exit(0)
    until(${holdSeconds}, lambda: bool(select.select([fd], [], [], 0.05)[0]))`,
  },
  {
    name: 'dnotify (fcntl F_NOTIFY) on a /usr directory the sender reads files in',
    inputs: ['send', 'receive'],
    code: `${prelude}import signal
directory = python_lib + "xmlrpc"
if role == "send":
    deadline = time.monotonic() + ${holdSeconds}
    while time.monotonic() < deadline:
        with open(directory + "/client.py", "rb") as f:
            f.read(4096)
        time.sleep(0.01)
    print("sent")
else:
    seen = []
    signal.signal(signal.SIGIO, lambda *_: seen.append(1))
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.fcntl(fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
    except OSError as error:
        print("no dnotify", error); sys.exit(0)
    until(${holdSeconds}, lambda: bool(seen))`,
  },
];

// Every answer at once, so that each sender overlaps its receiver.
const sandbox = bubblewrap();
const reward = unlessSkipped(
  sandbox,
  () =>
    new CodeTestsReward({
      timeoutMs: (holdSeconds + 3) * 1000,
      memoryMb: 256,
      concurrency: 2 * cases.length,
    }),
);
afterAll(() => reward?.close());

describe.skipIf(sandbox.skip)(`the tests of one answer cannot signal each other${sandbox.label}`, () => {
  it(`${cases.length} lock and notification channels: no receiver sees its sender`, async () => {
    const answers = cases.flatMap((entry) => [
      { ...entry, name: `${entry.name} (sender)`, inputs: ['send'] },
      { ...entry, name: `${entry.name} (receiver)`, inputs: ['receive'] },
    ]);
    const reports = await runHostile(reward, answers);
    expect(escapes(answers, reports)).toEqual([]);
    for (const [index, report] of reports.entries()) {
      // Both programs ran to the end: the sender said `sent`, the receiver `nothing seen` (or no API).
      expect(report.tests.map((test) => test.status)).toEqual(['WA']);
      expect(report.tests[0].detail).toMatch(index % 2 ? /nothing seen|no inotify|no dnotify/ : /sent/);
    }
  });
});
