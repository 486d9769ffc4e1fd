// Hostile programs after memory that neither the rlimits nor the resident-memory watchdog count, found by
// the outside round of issue 26: pipe buffers that pin transparent huge pages through vmsplice (1.2-2.5 GiB
// held under a 736 MiB limit) and user xattrs on the sandbox's tmpfs mounts (0.8-1.9 GiB; tmpfs keeps them
// in kernel memory outside its size= cap). The memory limit here is 64 MiB, so the watchdog kills above
// 192 MiB resident; each program tries to hold 256 MiB, keeps it a second and only then prints `escaped`
// (reward 1 = escape, hostile-helpers.ts).
//
// What stops them: seccomp.ts denies vmsplice (and splice, tee) and the setxattr family with EPERM.
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import {
  escapes,
  type HostileCase,
  memoryPrelude,
  runHostile,
} from '../../testing/rewards/code-tests/hostile-helpers.ts';
import { CodeTestsReward } from './reward.ts';

const sandbox = bubblewrap();
const reward = unlessSkipped(
  sandbox,
  () => new CodeTestsReward({ timeoutMs: 10_000, memoryMb: 64, concurrency: 4 }),
);
afterAll(() => reward?.close());

const mib = 1 << 20;
const target = 256 * mib;
const prelude = memoryPrelude(target, 'ctypes, os, sys, time');

// One 2 MiB transparent huge page (THP is `madvise` on most hosts) in a 4 MiB window, so that RLIMIT_AS
// (64 MiB) never sees more than 4 MiB at once; one 4 KiB piece of it goes into the pipe with vmsplice, the
// window is unmapped, and the pipe buffer keeps the whole huge page.
const hugePages = `import mmap
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.vmsplice.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
HUGE = 2 << 20
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
def pin_huge_page(pipe_write):
    window = libc.mmap(None, 2 * HUGE, 3, 0x22, -1, 0)  # PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS
    page = (window + HUGE - 1) & ~(HUGE - 1)
    libc.madvise(page, HUGE, 14)  # MADV_HUGEPAGE
    ctypes.memset(page, 1, HUGE)
    piece = iovec(page, 4096)
    result = libc.vmsplice(pipe_write, ctypes.byref(piece), 1, 0)
    error = ctypes.get_errno()
    libc.munmap(window, 2 * HUGE)
    if result < 0:
        raise OSError(error, os.strerror(error))
    return HUGE
`;

const cases: HostileCase[] = [
  {
    name: 'vmsplice: each pipe buffer pins a transparent huge page that is then unmapped',
    code: `${prelude}${hugePages}keep = []
try:
    while held < ${target}:
        a, b = os.pipe()
        keep.append((a, b))
        for _ in range(16):
            held += pin_huge_page(b)
except OSError as error:
    done(error)
done()`,
  },
  {
    name: 'vmsplice from short-lived children: the pages outlive the process that mapped them',
    code: `${prelude}${hugePages}report_read, report_write = os.pipe()
keep = []
for _ in range(8):
    a, b = os.pipe()
    keep.append((a, b))
    pid = os.fork()
    if pid == 0:
        mine = 0
        try:
            for _ in range(16):
                mine += pin_huge_page(b)
        except OSError as error:
            os.write(2, f"{error}\\n".encode())
        os.write(report_write, f"{mine}\\n".encode())
        os._exit(0)
    os.waitpid(pid, 0)
reports = os.fdopen(report_read)
held = sum(int(reports.readline()) for _ in range(8))
done()`,
  },
  {
    name: 'user xattrs of 64 KiB on many files in /work, /tmp and /dev/shm',
    code: `${prelude}value = b"x" * 65536
try:
    for index in range(${target / (64 * 1024)}):
        path = f"{('/work', '/tmp', '/dev/shm')[index % 3]}/f{index}"
        open(path, "wb").close()
        os.setxattr(path, "user.hog", value)
        held += len(value)
except OSError as error:
    done(error)
done()`,
  },
  {
    name: 'user xattrs through fsetxattr: thousands of names on one open /dev/shm file',
    code: `${prelude}value = b"y" * 65536
fd = os.open("/dev/shm/one", os.O_CREAT | os.O_RDWR)
try:
    for index in range(${target / (64 * 1024)}):
        os.setxattr(fd, f"user.n{index}", value)
        held += len(value)
except OSError as error:
    done(error)
done()`,
  },
];

describe.skipIf(sandbox.skip)(`pipe pages and tmpfs xattrs${sandbox.label}`, () => {
  it(`${cases.length} programs try to hold 256 MiB under a 64 MiB limit: none does`, async () => {
    const reports = await runHostile(reward, cases);
    expect(escapes(cases, reports)).toEqual([]);
    for (const report of reports) {
      // Refused at the first call, not killed later: the program itself says so.
      expect(report.tests[0].status).toBe('WA');
      expect(report.tests[0].detail).toMatch(/held 0 MiB/);
    }
    expect(reports[0].tests[0].detail).toMatch(/Operation not permitted/);
    expect(reports[2].tests[0].detail).toMatch(/Operation not permitted/);
    expect(reports[3].tests[0].detail).toMatch(/Operation not permitted/);
  });
});
