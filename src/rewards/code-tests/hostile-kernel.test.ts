// Hostile programs after the kernel's wider interfaces: nested user namespaces (the `unshare` tool,
// unshare(2), raw clone and clone3 with CLONE_NEWUSER, then a mount), the seccomp filter's own edges (the
// i386 `int 0x80` table, the x32 bit), ptrace of the sandbox's pid 1, a sweep of syscalls a test program
// never needs, and host files reached through /proc/<pid>/root, /proc/<pid>/cwd and symlinks. Each prints
// `escaped` when its attack worked (reward 1 = escape, hostile-helpers.ts).
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import { escapes, type HostileCase, runHostile } from '../../testing/rewards/code-tests/hostile-helpers.ts';
import { CodeTestsReward } from './reward.ts';

const sandbox = bubblewrap();
const reward = unlessSkipped(
  sandbox,
  () => new CodeTestsReward({ timeoutMs: 4000, memoryMb: 256, concurrency: 4 }),
);

// A host directory the sandbox user could write to, holding a file it could read, were either visible.
const hostDir = mkdtempSync(join(tmpdir(), 'code-tests-kernel-'));
chmodSync(hostDir, 0o777);
const token = `token-${randomUUID()}`;
writeFileSync(join(hostDir, 'marker'), token, { mode: 0o644 });
afterAll(async () => {
  await reward?.close();
  rmSync(hostDir, { recursive: true, force: true });
});

const libc = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x00020000, 17
`;

const cases: HostileCase[] = [
  {
    name: 'the unshare tool: a nested user namespace',
    code: 'import subprocess\nrun = subprocess.run(["/usr/bin/unshare", "-U", "-r", "/usr/bin/true"])\nprint("escaped" if run.returncode == 0 else "refused")',
  },
  {
    name: 'unshare(2) a user and a mount namespace, then mount a tmpfs',
    code: `${libc}if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
    print("unshare refused", ctypes.get_errno()); sys.exit(0)
print("escaped" if libc.mount(b"none", b"/work", b"tmpfs", 0, None) == 0 else "mount refused")`,
  },
  {
    name: 'raw clone(CLONE_NEWUSER)',
    code: `${libc}pid = libc.syscall(56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
if pid == 0:
    os._exit(0)
if pid > 0:
    os.waitpid(pid, 0)
print("escaped" if pid > 0 else f"refused {ctypes.get_errno()}")`,
  },
  {
    name: 'clone3 with CLONE_NEWUSER (flags in memory, out of a filter’s reach)',
    code: `${libc}args = (ctypes.c_uint64 * 11)(CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0)
pid = libc.syscall(435, ctypes.byref(args), ctypes.sizeof(args))
if pid == 0:
    os._exit(0)
if pid > 0:
    os.waitpid(pid, 0)
print("escaped" if pid > 0 else f"refused {ctypes.get_errno()}")`,
  },
  {
    name: 'flock through the i386 table (int 0x80), past an x86_64-only filter',
    code: `${libc}import mmap
# push rbx; mov ebx, edi; mov ecx, esi; mov eax, 143 (i386 flock); int 0x80; pop rbx; ret
code = bytes([0x53, 0x89, 0xFB, 0x89, 0xF1, 0xB8, 143, 0, 0, 0, 0xCD, 0x80, 0x5B, 0xC3])
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
call = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
fd = os.open("/work/lock", os.O_CREAT | os.O_RDWR)
# In a child: a kernel without i386 emulation (ia32_emulation=0) answers int 0x80 with SIGSEGV.
pid = os.fork()
if pid == 0:
    result = call(fd, 2)  # LOCK_EX
    print("escaped" if result == 0 else f"refused {result}", flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
if os.WIFSIGNALED(status):
    print(f"refused: signal {os.WTERMSIG(status)} (no i386 entry)")`,
  },
  {
    name: 'flock through the x32 numbering (bit 30 set)',
    code: `${libc}fd = os.open("/work/lock", os.O_CREAT | os.O_RDWR)
result = libc.syscall(0x40000000 | 73, fd, 2)
print("escaped" if result == 0 else f"refused {ctypes.get_errno()}")`,
  },
  {
    name: "ptrace attach to the sandbox's pid 1",
    code: `${libc}libc.ptrace.restype = ctypes.c_long
result = libc.ptrace(16, 1, None, None)  # PTRACE_ATTACH
if result == 0:  # let pid 1 go again, or the sandbox never ends and the escape reads as a timeout
    os.waitpid(1, 0x40000000)  # __WALL
    libc.ptrace(17, 1, None, None)  # PTRACE_DETACH
print("escaped" if result == 0 else f"refused {ctypes.get_errno()}")`,
  },
  {
    name: 'a sweep of syscalls a test program never needs',
    code: `${libc}import struct
params = ctypes.create_string_buffer(120)
me = os.getpid()
attempts = {
    "inotify_init1": (294, 0),
    "fanotify_init": (300, 0x200, 0),
    "userfaultfd": (323, 1),
    "io_uring_setup": (425, 1, params),
    "add_key": (248, b"user", b"k", b"v", 1, -2),
    "keyctl": (250, 0, -2, 1),
    "mq_open": (240, b"q", 0o102, 0o600, None),
    "msgget": (68, 0, 0o1600),
    "semget": (64, 0, 1, 0o1600),
    "shmget": (29, 0, 4096, 0o1600),
    "memfd_create": (319, b"m", 0),
    "memfd_secret": (447, 0),
    "socket": (41, 1, 1, 0),
    "kcmp": (312, me, me, 0, 0, 0),
    "pidfd_open": (434, me, 0),
    # a real pidfd when pidfd_open works (it is unavailable in the sandbox), else -1
    "pidfd_getfd": (438, libc.syscall(434, me, 0), 0, 0),
    "name_to_handle_at": (303, -100, b"/work", ctypes.create_string_buffer(128), ctypes.byref(ctypes.c_int()), 0),
}
worked = [name for name, (nr, *args) in attempts.items() if libc.syscall(nr, *args) >= 0]
print(*worked, file=sys.stderr)
print("escaped" if worked else "all refused")`,
  },
  {
    name: 'host files through /proc/*/root, /proc/*/cwd, a symlink and the plain path',
    code: `import os, sys
host = ${JSON.stringify(hostDir)}
found = []
os.symlink(host, "/work/link")
for base in (host, "/proc/1/root" + host, "/proc/self/root" + host, "/proc/1/cwd/../.." + host, "/work/link"):
    try:
        if ${JSON.stringify(token)} in open(base + "/marker").read():
            found.append(base)
    except OSError:
        pass
    try:
        open(base + "/escaped", "w").write("x")
        found.append(base)
    except OSError:
        pass
print(*found, file=sys.stderr)
print("escaped" if found else "not reached")`,
  },
];

describe.skipIf(sandbox.skip)(`the kernel interfaces a test program never needs${sandbox.label}`, () => {
  it(`${cases.length} programs: user namespaces, filter edges, ptrace, a syscall sweep, host paths`, async () => {
    const reports = await runHostile(reward, cases);
    expect(escapes(cases, reports)).toEqual([]);
    // Every program ran to the end and said what happened (an attack that hangs would hide as a timeout).
    for (const report of reports) expect(report.tests[0].status).toBe('WA');
    // The sweep ran to the end and named no syscall that worked.
    expect(reports[7].tests[0].detail).toContain('all refused');
    expect(readdirSync(hostDir)).toEqual(['marker']);
  });
});
