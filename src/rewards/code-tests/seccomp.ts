// The seccomp filter every sandboxed program runs under, as the classic-BPF bytes bwrap's `--seccomp FD`
// reads (an array of `struct sock_filter`, installed with PR_SET_NO_NEW_PRIVS just before bwrap execs the
// command, and in bwrap's own pid 1 inside the sandbox). A small assembler with symbolic jump labels builds
// the program; nothing here needs libseccomp.
//
// What it denies (EPERM unless noted) and why:
// - syscalls of any architecture but x86_64, and x32 syscalls (numbers with bit 30 set): the checks below
//   use x86_64 numbers, and `int 0x80` would otherwise reach the i386 table unfiltered;
// - file locks (flock; fcntl F_GETLK/F_SETLK/F_SETLKW, the OFD variants, leases) and change notification
//   (inotify, fanotify, fcntl F_NOTIFY): sandboxes see the same read-only /usr inodes, and a lock or an
//   access event on one of them carries bits from one test's run to another's;
// - page-cache probes of those shared files: preadv2/pwritev2 (ENOSYS, so that glibc falls back to
//   preadv/pwritev when no flag is given; RWF_NOWAIT answered "is this page cached?" without timing, and
//   what one test read stays cached for the next) and cachestat (ENOSYS). mincore is restricted by the
//   kernel itself (5.0+: only files the caller may write), so it stays allowed;
// - host-wide counters that one test can set and the next read: sysinfo (below) and pidfd_open (ENOSYS)
//   and clone's CLONE_PIDFD (a pidfd's inode number counts every process the host ever created);
// - memory the per-process rlimits and the resident-memory watchdog do not see: memfd_create, memfd_secret,
//   SysV shared memory / message queues / semaphores, POSIX message queues, socket and socketpair (socket
//   buffers are kernel memory; the sandbox has no network anyway), io_uring, userfaultfd, fcntl
//   F_SETPIPE_SZ (pipes keep the default 64 KiB), vmsplice, splice and tee (a pipe buffer pins the user or
//   page-cache page it points at, and a transparent huge page whole: 1.2-2.5 GiB held under a 736 MiB
//   limit), and the setxattr family (user xattrs on tmpfs are kernel memory outside the mount's size cap:
//   0.8-1.9 GiB); removing or reading xattrs stays allowed;
// - legacy AIO (io_setup, io_submit, io_getevents, io_pgetevents, io_cancel, io_destroy), like io_uring:
//   io_setup reserves from the host-wide fs.aio-max-nr, and one program reserved all of it, so the host's
//   own io_setup calls failed while it ran;
// - sysinfo: host-wide load averages (which decay over minutes, so one test's threads show in the next
//   test's reading), process count and free memory; sandbox.ts hides /proc/loadavg, /proc/stat and the
//   like for the same reason. sysconf(_SC_PHYS_PAGES) then returns garbage (glibc ignores the error and
//   reads an unset struct); python and node start, and node's os.totalmem() is 0;
// - namespaces, mounts and the kernel's administrative or introspective interfaces, none of which a test
//   program needs: unshare, setns, clone with any CLONE_NEW* flag, clone3 (ENOSYS, so that libc falls back
//   to clone, whose flags a classic-BPF filter can read; clone3 passes them in memory), mount and the new
//   mount API, ptrace, process_vm_readv/writev, pidfd_getfd, kcmp, keyrings, bpf, perf_event_open, module
//   and kexec loading, reboot, swap, acct, quotas, syslog, clock setting, iopl/ioperm/modify_ldt, NUMA
//   page migration, handle-based opens.
// Everything else is allowed: the filter is a deny list, so a syscall added to the kernel later is allowed
// until it is listed here.
//
// Residual risk: x86_64 only (`seccompFilter` throws elsewhere, and the sandbox then refuses to run); a
// kernel bug in an allowed syscall still escapes. Channels through state every process of the host shares
// are not closed by a syscall filter: futex wake-ups keyed by a shared file page (any mapping of a /usr
// file, which every process has: libc), CPU contention, the timing of reads from shared files (page cache,
// dentry cache), per-uid counters. reward.ts runs one answer's tests strictly one after another, which
// closes the ones that need both ends alive (futex, contention, pipe quota); what persists is measured in
// docs/rewards/code-tests.md (threat model).

/** struct seccomp_data offsets (bytes): nr, arch, then args[i] as 64-bit little-endian words. */
const offsetNr = 0;
const offsetArch = 4;
const offsetArgLow = (index: number) => 16 + 8 * index;

const auditArchX86_64 = 0xc000003e;
const x32SyscallBit = 0x40000000;

// Return actions (linux/seccomp.h); the low 16 bits of SECCOMP_RET_ERRNO carry the errno.
const retAllow = 0x7fff0000;
const retErrno = 0x00050000;
const eperm = 1;
const enosys = 38;

// Classic BPF opcodes (linux/filter.h).
const ldWordAbs = 0x20; // BPF_LD | BPF_W | BPF_ABS: A = seccomp_data[k]
const jeqK = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const jgeK = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const jsetK = 0x45; // BPF_JMP | BPF_JSET | BPF_K: A & k != 0
const retK = 0x06; // BPF_RET | BPF_K

/** x86_64 syscall numbers (asm/unistd_64.h). */
export const x86_64 = {
  socket: 41,
  socketpair: 53,
  clone: 56,
  fcntl: 72,
  flock: 73,
  preadv2: 327,
  pwritev2: 328,
  clone3: 435,
} as const;

/** Denied outright with EPERM, by x86_64 number (asm/unistd_64.h). */
const deniedSyscalls: Record<string, number> = {
  // SysV IPC: shared memory survives detaching and is not in any process's resident set
  shmget: 29,
  shmat: 30,
  shmctl: 31,
  semget: 64,
  semop: 65,
  semctl: 66,
  shmdt: 67,
  msgget: 68,
  msgsnd: 69,
  msgrcv: 70,
  msgctl: 71,
  semtimedop: 220,
  // sockets: buffers are unaccounted kernel memory; there is no network to reach
  socket: x86_64.socket,
  socketpair: x86_64.socketpair,
  flock: x86_64.flock,
  // host-wide load averages, process count and free memory (the /proc files with them are hidden too)
  sysinfo: 99,
  ptrace: 101,
  // user extended attributes: tmpfs keeps them in kernel memory, outside the mount's size= cap
  setxattr: 188,
  lsetxattr: 189,
  fsetxattr: 190,
  setxattrat: 463,
  // legacy AIO: contexts reserve from the host-wide fs.aio-max-nr (and pin kernel memory)
  io_setup: 206,
  io_destroy: 207,
  io_getevents: 208,
  io_submit: 209,
  io_cancel: 210,
  io_pgetevents: 333,
  // pipe buffers that pin user pages (vmsplice: a transparent huge page whole) or page-cache pages
  splice: 275,
  tee: 276,
  vmsplice: 278,
  syslog: 103,
  uselib: 134,
  vhangup: 153,
  modify_ldt: 154,
  pivot_root: 155,
  adjtimex: 159,
  chroot: 161,
  acct: 163,
  settimeofday: 164,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  iopl: 172,
  ioperm: 173,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  lookup_dcookie: 212,
  clock_settime: 227,
  mbind: 237,
  mq_open: 240,
  mq_unlink: 241,
  mq_timedsend: 242,
  mq_timedreceive: 243,
  mq_notify: 244,
  mq_getsetattr: 245,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  inotify_init: 253,
  inotify_add_watch: 254,
  migrate_pages: 256,
  unshare: 272,
  move_pages: 279,
  inotify_init1: 294,
  perf_event_open: 298,
  fanotify_init: 300,
  fanotify_mark: 301,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  clock_adjtime: 305,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  finit_module: 313,
  memfd_create: 319,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  pidfd_getfd: 438,
  process_madvise: 440,
  mount_setattr: 442,
  quotactl_fd: 443,
  memfd_secret: 447,
  process_mrelease: 448,
};

/**
 * Answered ENOSYS, as if the kernel lacked them, so that libc falls back to an older call: preadv2 and
 * pwritev2 (to preadv/pwritev when no RWF_* flag is given; RWF_NOWAIT probed the page cache), cachestat,
 * pidfd_open (callers fall back to waitpid), clone3.
 */
const unavailableSyscalls: Record<string, number> = {
  preadv2: x86_64.preadv2,
  pwritev2: x86_64.pwritev2,
  cachestat: 451,
  // a pidfd's inode number is the host-wide count of processes ever created (pidfs, 6.9+): one test forks
  // until it reads a chosen value, the next reads it back
  pidfd_open: 434,
  clone3: x86_64.clone3,
};

/** fcntl commands denied with EPERM (bits/fcntl-linux.h). */
const deniedFcntlCommands: Record<string, number> = {
  F_GETLK: 5,
  F_SETLK: 6,
  F_SETLKW: 7,
  F_OFD_GETLK: 36,
  F_OFD_SETLK: 37,
  F_OFD_SETLKW: 38,
  F_SETLEASE: 1024,
  F_GETLEASE: 1025,
  F_NOTIFY: 1026,
  F_SETPIPE_SZ: 1031,
};

// CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET.
// (CLONE_NEWTIME, 0x80, only exists for unshare and clone3: in clone's flags those bits are the exit signal.)
// Also CLONE_PIDFD (0x1000), for the reason pidfd_open is unavailable.
const cloneNamespaceFlags =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00001000;

/** One instruction with symbolic jump targets; `next` falls through. */
type Instruction =
  | { op: 'load'; offset: number }
  | { op: 'jeq' | 'jge' | 'jset'; value: number; ifTrue: string; ifFalse: string }
  | { op: 'return'; value: number }
  | { op: 'label'; name: string };

const next = 'next';

/**
 * Assembles instructions into `struct sock_filter` bytes: u16 code, u8 jt, u8 jf, u32 k, little-endian,
 * 8 bytes each. Jumps are forward only, relative to the following instruction, and at most 255 apart.
 */
export function assemble(program: readonly Instruction[]): Buffer {
  const positions = new Map<string, number>();
  const code: Exclude<Instruction, { op: 'label' }>[] = [];
  for (const instruction of program) {
    if (instruction.op === 'label') {
      if (positions.has(instruction.name)) throw new Error(`seccomp: duplicate label ${instruction.name}`);
      positions.set(instruction.name, code.length);
    } else code.push(instruction);
  }
  const bytes = Buffer.alloc(code.length * 8);
  code.forEach((instruction, index) => {
    const offset = (target: string) => {
      if (target === next) return 0;
      const position = positions.get(target);
      if (position === undefined) throw new Error(`seccomp: unknown label ${target}`);
      const distance = position - index - 1;
      if (distance < 0 || distance > 255) throw new Error(`seccomp: jump to ${target} out of range`);
      return distance;
    };
    let opcode: number;
    let jumpTrue = 0;
    let jumpFalse = 0;
    let k: number;
    switch (instruction.op) {
      case 'load':
        opcode = ldWordAbs;
        k = instruction.offset;
        break;
      case 'return':
        opcode = retK;
        k = instruction.value;
        break;
      default:
        opcode = { jeq: jeqK, jge: jgeK, jset: jsetK }[instruction.op];
        jumpTrue = offset(instruction.ifTrue);
        jumpFalse = offset(instruction.ifFalse);
        k = instruction.value;
    }
    bytes.writeUInt16LE(opcode, index * 8);
    bytes.writeUInt8(jumpTrue, index * 8 + 2);
    bytes.writeUInt8(jumpFalse, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return bytes;
}

/** The filter as symbolic instructions (exported for tests that read it). */
export function filterProgram(): Instruction[] {
  const program: Instruction[] = [
    { op: 'load', offset: offsetArch },
    { op: 'jeq', value: auditArchX86_64, ifTrue: next, ifFalse: 'deny' },
    { op: 'load', offset: offsetNr },
    { op: 'jge', value: x32SyscallBit, ifTrue: 'deny', ifFalse: next },
    { op: 'jeq', value: x86_64.fcntl, ifTrue: 'fcntl', ifFalse: next },
    { op: 'jeq', value: x86_64.clone, ifTrue: 'clone', ifFalse: next },
  ];
  for (const nr of Object.values(unavailableSyscalls)) {
    program.push({ op: 'jeq', value: nr, ifTrue: 'enosys', ifFalse: next });
  }
  // One compare per denied syscall; the longest jump (first entry to `deny`) stays under 255.
  for (const nr of Object.values(deniedSyscalls)) {
    program.push({ op: 'jeq', value: nr, ifTrue: 'deny', ifFalse: next });
  }
  program.push({ op: 'return', value: retAllow });

  // fcntl(fd, cmd, …): cmd is an int, the low word of args[1].
  program.push({ op: 'label', name: 'fcntl' }, { op: 'load', offset: offsetArgLow(1) });
  for (const command of Object.values(deniedFcntlCommands)) {
    program.push({ op: 'jeq', value: command, ifTrue: 'deny', ifFalse: next });
  }
  program.push({ op: 'return', value: retAllow });

  // clone(flags, …) on x86_64: every CLONE_NEW* bit lies in the low word of args[0].
  program.push(
    { op: 'label', name: 'clone' },
    { op: 'load', offset: offsetArgLow(0) },
    { op: 'jset', value: cloneNamespaceFlags, ifTrue: 'deny', ifFalse: next },
    { op: 'return', value: retAllow },
    { op: 'label', name: 'enosys' },
    { op: 'return', value: retErrno | enosys },
    { op: 'label', name: 'deny' },
    { op: 'return', value: retErrno | eperm },
  );
  return program;
}

let cachedFilter: Buffer | undefined;

/** The compiled filter for bwrap's `--seccomp FD`; throws on architectures it was not written for. */
export function seccompFilter(arch: string = process.arch): Buffer {
  if (arch !== 'x64') {
    throw new Error(`the code-tests seccomp filter is written for x86_64 syscall numbers, not ${arch}`);
  }
  cachedFilter ??= assemble(filterProgram());
  return cachedFilter;
}

/** Names of what the filter denies, for documentation and tests. */
export const deniedNames = {
  syscalls: Object.keys(deniedSyscalls),
  /** Answered ENOSYS rather than EPERM. */
  unavailable: Object.keys(unavailableSyscalls),
  fcntlCommands: Object.keys(deniedFcntlCommands),
};
