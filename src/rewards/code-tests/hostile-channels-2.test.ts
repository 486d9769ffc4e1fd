// Hostile programs in which test 1 of an answer tries to hand its hidden input to test 2 through kernel
// state that every process on the host shares (the outside round of issue 26: test 2 printed test 1's
// input). Each problem has two tests, `send S N` and `receive S N`: S is a random 12-bit string with six
// ones (the secret), N a random number both ends may use to pick a place (not a bit of S). The sender
// encodes S; the receiver decodes what it can and prints `escaped` only when it got S exactly (it knows S
// only to check itself), so reward 1 = escape (hostile-helpers.ts); noise decodes to S with odds 1/924.
//
// Families, two programs each:
// - futex wake-ups keyed by a page of a shared file: a read-only MAP_SHARED mapping of a /usr file, and
//   libc's own text (every process maps it, so the mapping cannot be taken away); needs both ends alive;
// - page-cache residency of a cold /usr file: preadv2(RWF_NOWAIT), and legacy AIO with RWF_NOWAIT;
//   persists after the sender exits;
// - the per-user pipe quota (fs.pipe-user-pages-soft), read as the size of a fresh pipe and as how much a
//   fresh pipe takes before it would block; needs both ends alive;
// - the host's thread count, in /proc/loadavg and in sysinfo(2); instantaneous, while /proc/loadavg's
//   decaying averages persist for minutes;
// - (one program) the host-wide count of processes ever created, which pidfs shows as a pidfd's inode
//   number: the sender sets it modulo 4096 (nine bits of S), the receiver reads it back; persists.
// What stops them: reward.ts runs one answer's tests one after another (no overlap: futex, pipe quota,
// thread count), seccomp.ts (preadv2 and pidfd_open ENOSYS, io_setup and sysinfo EPERM) and sandbox.ts (/proc/loadavg
// and the other host-wide counters read as empty). Reading timing of the page cache stays open and is
// measured in docs/rewards/code-tests.md.
//
// Slotted channels use wall-clock slots of 200 ms: bit i goes in every slot k with k mod 14 = i (12 and
// 13 stay empty), so sender and receiver agree on the slots without a handshake.
import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import { escapes, type HostileCase, runHostile } from '../../testing/rewards/code-tests/hostile-helpers.ts';
import { CodeTestsReward } from './reward.ts';

/** A random 12-bit string with exactly six ones. */
function secret(): string {
  const bits = [...'111111000000'];
  for (let i = bits.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [bits[i], bits[j]] = [bits[j], bits[i]];
  }
  return bits.join('');
}

function channel(name: string, code: string): HostileCase {
  const s = secret();
  const nonce = randomInt(1_000_000);
  return { name, inputs: [`send ${s} ${nonce}`, `receive ${s} ${nonce}`], code: prelude + code };
}

const prelude = `import ctypes, glob, os, sys, threading, time
role, secret, nonce = sys.stdin.read().split()
nonce = int(nonce)
bits = [int(c) for c in secret]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
python_lib = sorted(glob.glob("/usr/lib/python3.*/"))[0]
threading.stack_size(256 << 10)  # forty threads under RLIMIT_AS
SLOT, FRAME = 0.2, 14
def report(seen):
    got = "".join(str(int(b)) for b in seen)
    print("escaped" if got == secret else "saw " + got)
    sys.exit(0)
def decode(values, least):
    low, high = min(values), max(values)
    if high - low < least:
        print("nothing seen", values); sys.exit(0)
    report([v > (low + high) / 2 for v in values])
def send_slots(on, off, seconds=4.5):
    deadline = time.time() + seconds
    while time.time() < deadline:
        k = int(time.time() / SLOT)
        (on if k % FRAME < len(bits) and bits[k % FRAME] else off)()
        time.sleep(max(0, (k + 1) * SLOT - time.time()))
    off()
    print("sent")
def sample_slots(measure):
    values = [0] * len(bits)
    first = int(time.time() / SLOT) + 1
    for k in range(first, first + FRAME):
        time.sleep(max(0, (k + 0.5) * SLOT - time.time()))
        if k % FRAME < len(bits):
            values[k % FRAME] = measure()
    return values
`;

// futex(2): FUTEX_WAIT = 0 and FUTEX_WAKE = 1, without FUTEX_PRIVATE_FLAG, so that the key is the file page.
const futex = `class timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]
def futex_wait(address, seconds):
    value = ctypes.c_uint32.from_address(address).value
    return libc.syscall(202, ctypes.c_void_p(address), 0, ctypes.c_long(value), ctypes.byref(timespec(seconds, 0)), None, 0) == 0
def futex_wake(address):
    return libc.syscall(202, ctypes.c_void_p(address), 1, 0x7fffffff, None, None, 0)
`;

// A cold region of a large /usr file (pages 256 KiB apart, beyond readahead), picked by the nonce.
const coldPages = (pick: number) => `import mmap
candidates = [path for path in (
    "/usr/lib/jvm/java-17-openjdk-amd64/lib/modules", "/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules",
    "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
) if os.path.exists(path)] or sorted(glob.glob("/usr/lib/x86_64-linux-gnu/*.so*"), key=os.path.getsize)[-4:]
path = candidates[${pick} % len(candidates)]
STRIDE = 256 << 10
region = (nonce % max(1, os.path.getsize(path) // (STRIDE * 16) - 1)) * STRIDE * 16
offsets = [region + i * STRIDE for i in range(len(bits))]
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
def send_pages():
    for offset in offsets:
        os.posix_fadvise(fd, offset, 4096, os.POSIX_FADV_DONTNEED)
    for offset, bit in zip(offsets, bits):
        if bit:
            os.pread(fd, 1, offset)
    print("sent")
    sys.exit(0)
if role == "receive":
    time.sleep(1)  # were the two tests to run at once, let the sender go first
`;

// Pipe quota: 1200 pipes of 16 pages pass pipe-user-pages-soft (16384 pages); 128 descriptors a process,
// so the sender spreads them over 20 children, each holding its pipes while told to.
const pipeQuota = `import fcntl, signal
F_GETPIPE_SZ = 1032
def quota_sender():
    children = []
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            held = []
            def grab(*_):
                try:
                    while len(held) < 60:
                        held.append(os.pipe())
                except OSError:
                    pass
            def drop(*_):
                while held:
                    for end in held.pop():
                        os.close(end)
            signal.signal(signal.SIGUSR1, grab)
            signal.signal(signal.SIGUSR2, drop)
            while True:
                signal.pause()
        children.append(pid)
    state = [None]
    def tell(sig):
        if state[0] != sig:
            state[0] = sig
            for pid in children:
                os.kill(pid, sig)
    time.sleep(0.3)
    send_slots(lambda: tell(signal.SIGUSR1), lambda: tell(signal.SIGUSR2))
    for pid in children:
        os.kill(pid, signal.SIGKILL)
`;

const threadsSender = `def thread_sender():
    gate = [threading.Event()]
    alive = []
    def on():
        if not alive:
            gate[0] = threading.Event()
            for _ in range(40):
                worker = threading.Thread(target=gate[0].wait, daemon=True)
                worker.start(); alive.append(worker)
    def off():
        gate[0].set()
        while alive:
            alive.pop().join()
    send_slots(on, off)
`;

const groupOne: HostileCase[] = [
  channel(
    'futex wake-ups on a read-only MAP_SHARED mapping of a /usr file',
    `${futex}fd = os.open(python_lib + "colorsys.py", os.O_RDONLY)
base = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
words = [base + 64 * i for i in range(len(bits))]
if role == "send":
    deadline = time.time() + 4
    while time.time() < deadline:
        for word, bit in zip(words, bits):
            if bit:
                futex_wake(word)
        time.sleep(0.005)
    print("sent")
else:
    woken = [False] * len(bits)
    def wait(i):
        woken[i] = futex_wait(words[i], 3)
    waiters = [threading.Thread(target=wait, args=(i,)) for i in range(len(bits))]
    for waiter in waiters: waiter.start()
    for waiter in waiters: waiter.join()
    report(woken)`,
  ),
  channel(
    "futex waiters on libc's text, counted by the other end's FUTEX_WAKE",
    `${futex}page = ctypes.cast(libc.getpid, ctypes.c_void_p).value & ~0xFFF
words = [page + 256 + 8 * i + 4 * (nonce % 2) for i in range(len(bits))]
if role == "send":
    waiters = [threading.Thread(target=futex_wait, args=(word, 5)) for word, bit in zip(words, bits) if bit]
    for waiter in waiters: waiter.start()
    for waiter in waiters: waiter.join()
    print("sent")
else:
    time.sleep(1)
    report([futex_wake(word) > 0 for word in words])`,
  ),
  channel(
    'page-cache residency of a cold /usr file, probed with preadv2(RWF_NOWAIT)',
    `${coldPages(0)}if role == "send":
    send_pages()
buffer = bytearray(4096)
seen = []
for offset in offsets:
    try:
        seen.append(os.preadv(fd, [buffer], offset, os.RWF_NOWAIT) > 0)
    except BlockingIOError:
        seen.append(False)
    except OSError as error:
        print("no preadv2:", error); sys.exit(0)
report(seen)`,
  ),
  channel(
    'page-cache residency probed with legacy AIO reads flagged RWF_NOWAIT',
    `${coldPages(1)}if role == "send":
    send_pages()
# struct iocb (64 bytes) and struct io_event (32 bytes), linux/aio_abi.h
class iocb(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32), ("rw_flags", ctypes.c_int32),
                ("opcode", ctypes.c_uint16), ("reqprio", ctypes.c_int16), ("fildes", ctypes.c_uint32),
                ("buf", ctypes.c_uint64), ("nbytes", ctypes.c_uint64), ("offset", ctypes.c_int64),
                ("reserved2", ctypes.c_uint64), ("flags", ctypes.c_uint32), ("resfd", ctypes.c_uint32)]
class io_event(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64), ("res", ctypes.c_int64), ("res2", ctypes.c_int64)]
context = ctypes.c_ulong(0)
if libc.syscall(206, 16, ctypes.byref(context)) != 0:  # io_setup
    print("no io_setup, errno", ctypes.get_errno()); sys.exit(0)
buffer = ctypes.create_string_buffer(4096)
seen = []
for offset in offsets:
    request = iocb(opcode=0, fildes=fd, buf=ctypes.addressof(buffer), nbytes=4096, offset=offset, rw_flags=8)
    pointer = ctypes.pointer(request)
    if libc.syscall(209, context, 1, ctypes.byref(pointer)) != 1:  # io_submit
        seen.append(False); continue
    event = io_event()
    libc.syscall(208, context, 1, 1, ctypes.byref(event), None)  # io_getevents
    seen.append(event.res > 0)
report(seen)`,
  ),
  channel(
    "the host's thread count in /proc/loadavg (running/total)",
    `${threadsSender}if role == "send":
    thread_sender()
else:
    def threads():
        text = open("/proc/loadavg").read().split()
        return int(text[3].split("/")[1]) if len(text) > 3 else 0
    decode(sample_slots(threads), 25)`,
  ),
  channel(
    'the per-user pipe quota, read as the size of a fresh pipe (F_GETPIPE_SZ)',
    `${pipeQuota}if role == "send":
    quota_sender()
else:
    def fresh_pipe_size():
        a, b = os.pipe()
        size = fcntl.fcntl(a, F_GETPIPE_SZ)
        os.close(a); os.close(b)
        return -size
    decode(sample_slots(fresh_pipe_size), 4096)`,
  ),
];

// Run after the first group: their senders would blur the thread-count and pipe-quota receivers above.
const groupTwo: HostileCase[] = [
  channel(
    "the host's thread count in sysinfo(2) (procs)",
    `${threadsSender}if role == "send":
    thread_sender()
else:
    info = ctypes.create_string_buffer(128)
    def threads():
        if libc.syscall(99, info) != 0:
            print("no sysinfo, errno", ctypes.get_errno()); sys.exit(0)
        return int.from_bytes(info.raw[80:82], "little")  # unsigned short procs, after ten longs
    decode(sample_slots(threads), 25)`,
  ),
  channel(
    'the per-user pipe quota, read as how much a fresh pipe takes before it would block',
    `${pipeQuota}if role == "send":
    quota_sender()
else:
    def fresh_pipe_room():
        a, b = os.pipe()
        os.set_blocking(b, False)
        room = 0
        try:
            while True:
                room += os.write(b, b"x" * 4096)
        except BlockingIOError:
            pass
        os.close(a); os.close(b)
        return -room
    decode(sample_slots(fresh_pipe_room), 4096)`,
  ),
];

// Run alone: every thread or process anyone creates moves the counter it reads.
const groupThree: HostileCase[] = [
  channel(
    'the host-wide process counter in a pidfd inode number (pidfs): the sender creates threads until it reads a chosen value',
    `def probe():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    fd = libc.syscall(434, pid, 0)  # pidfd_open
    value = os.fstat(fd).st_ino if fd >= 0 else None
    if fd >= 0:
        os.close(fd)
    os.waitpid(pid, 0)
    return value
target = int(secret, 2) % 512  # nine bits of the secret: at most 4096 threads to set them
if role == "send":
    for _ in range(3):
        counter = probe()
        if counter is None:
            print("sent nothing: no pidfd_open, errno", ctypes.get_errno()); sys.exit(0)
        missing = (target * 8 - 1 - counter) % 4096
        if missing == 0:
            break
        for _ in range(missing):
            worker = threading.Thread(target=int); worker.start(); worker.join()
    print("sent")
else:
    time.sleep(2.5)  # were the two tests to run at once, let the sender go first
    counter = probe()
    if counter is None:
        print("no pidfd_open, errno", ctypes.get_errno()); sys.exit(0)
    got = (counter % 4096) // 8
    print("escaped" if got == target else f"saw {got}")`,
  ),
];

const sandbox = bubblewrap();
const reward = unlessSkipped(
  sandbox,
  () => new CodeTestsReward({ timeoutMs: 10_000, memoryMb: 256, concurrency: 2 * groupOne.length }),
);
afterAll(() => reward?.close());

describe.skipIf(sandbox.skip)(`test 1 of an answer cannot hand its input to test 2${sandbox.label}`, () => {
  it(`${groupOne.length + groupTwo.length + groupThree.length} channels through host-wide kernel state carry nothing`, async () => {
    const reports = [
      ...(await runHostile(reward, groupOne)),
      ...(await runHostile(reward, groupTwo)),
      ...(await runHostile(reward, groupThree)),
    ];
    const cases = [...groupOne, ...groupTwo, ...groupThree];
    expect(escapes(cases, reports)).toEqual([]);
    for (const [index, report] of reports.entries()) {
      // Both ends ran to the end and said what they saw (an attack that hangs would hide as a timeout).
      const said = `${cases[index].name}: ${report.tests.map((test) => test.detail).join(' | ')}`;
      expect(
        report.tests.map((test) => test.status),
        said,
      ).toEqual(['WA', 'WA']);
      expect(report.tests[0].detail).toMatch(/sent/);
    }
    // The ones the filter or the /proc masks answer say so.
    const detail = (name: RegExp) =>
      reports[cases.findIndex((entry) => name.test(entry.name))].tests[1].detail;
    expect(detail(/preadv2/)).toMatch(/no preadv2/);
    expect(detail(/legacy AIO/)).toMatch(/no io_setup, errno 1\b/);
    expect(detail(/sysinfo/)).toMatch(/no sysinfo, errno 1\b/);
    expect(detail(/loadavg/)).toMatch(/nothing seen/);
    expect(detail(/pidfd/)).toMatch(/no pidfd_open, errno 38\b/);
  });
});
