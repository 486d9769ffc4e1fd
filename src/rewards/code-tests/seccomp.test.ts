// The BPF assembler against bytes worked out by hand, and the whole filter run by a small classic-BPF
// interpreter written here from the kernel's documentation (Documentation/networking/filter.rst), on
// seccomp_data records built by hand. The hostile-*.test.ts suites check the same filter in the kernel.
import { describe, expect, it } from 'vitest';
import { assemble, deniedNames, filterProgram, seccompFilter } from './seccomp.ts';

/** Runs classic-BPF `bytes` on one seccomp_data record; returns the filter's return value. */
function interpret(bytes: Buffer, nr: number, arch: number, args: number[] = []): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  args.forEach((value, index) => {
    data.writeBigUInt64LE(BigInt(value), 16 + 8 * index);
  });
  let accumulator = 0;
  for (let pc = 0; pc < bytes.length / 8; pc++) {
    const code = bytes.readUInt16LE(pc * 8);
    const jumpTrue = bytes.readUInt8(pc * 8 + 2);
    const jumpFalse = bytes.readUInt8(pc * 8 + 3);
    const k = bytes.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) accumulator = data.readUInt32LE(k);
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += accumulator === k ? jumpTrue : jumpFalse;
    else if (code === 0x35) pc += accumulator >= k ? jumpTrue : jumpFalse;
    else if (code === 0x45) pc += (accumulator & k) >>> 0 !== 0 ? jumpTrue : jumpFalse;
    else throw new Error(`unknown opcode ${code}`);
  }
  throw new Error('fell off the end of the program');
}

const x86_64 = 0xc000003e;
const i386 = 0x40000003;
const allow = 0x7fff0000;
const eperm = 0x00050001;
const enosys = 0x00050026;

describe('seccomp filter', () => {
  it('assembles to the bytes worked out by hand', () => {
    const bytes = assemble([
      { op: 'load', offset: 4 },
      { op: 'jeq', value: x86_64, ifTrue: 'next', ifFalse: 'deny' },
      { op: 'return', value: allow },
      { op: 'label', name: 'deny' },
      { op: 'return', value: eperm },
    ]);
    expect(bytes.toString('hex')).toBe(
      [
        '2000000004000000', // ld [4]
        '150000013e0000c0', // jeq #0xc000003e, jt 0, jf 1
        '060000000000ff7f', // ret #0x7fff0000
        '0600000001000500', // ret #0x00050001
      ].join(''),
    );
    expect(() => assemble([{ op: 'jeq', value: 1, ifTrue: 'nowhere', ifFalse: 'next' }])).toThrow(
      /unknown label/,
    );
  });

  it('allows what programs need and denies locks, memfd, sockets, namespaces, other tables', () => {
    const filter = seccompFilter('x64');
    const run = (nr: number, args: number[] = [], arch = x86_64) => interpret(filter, nr, arch, args);
    expect(run(0)).toBe(allow); // read
    expect(run(57)).toBe(allow); // fork
    expect(run(59)).toBe(allow); // execve
    expect(run(302)).toBe(allow); // prlimit64 (prlimit sets the limits under the filter)
    expect(run(72, [3, 1])).toBe(allow); // fcntl F_GETFD
    expect(run(72, [3, 4, 0x800])).toBe(allow); // fcntl F_SETFL O_NONBLOCK
    expect(run(56, [0x01200011])).toBe(allow); // clone as fork(): CLONE_CHILD_SETTID|CLEARTID|SIGCHLD
    expect(run(56, [0x003d0f00])).toBe(allow); // clone for a thread
    for (const command of [5, 6, 7, 36, 37, 38, 1024, 1025, 1026, 1031])
      expect(run(72, [3, command])).toBe(eperm);
    expect(run(73, [3, 2])).toBe(eperm); // flock
    expect(run(319)).toBe(eperm); // memfd_create
    expect(run(41, [1, 1, 0])).toBe(eperm); // socket(AF_UNIX)
    expect(run(272, [0x10000000])).toBe(eperm); // unshare(CLONE_NEWUSER)
    expect(run(56, [0x10000011])).toBe(eperm); // clone(CLONE_NEWUSER | SIGCHLD)
    expect(run(56, [0x40000011])).toBe(eperm); // clone(CLONE_NEWNET | SIGCHLD)
    expect(run(435)).toBe(enosys); // clone3: libc falls back to clone
    expect(run(101)).toBe(eperm); // ptrace
    expect(run(0x40000000 | 73)).toBe(eperm); // x32 flock
    expect(run(0x40000000)).toBe(eperm); // x32 read: the whole x32 table
    expect(run(143, [3, 2], i386)).toBe(eperm); // i386 flock (x86_64 143 would be sched_getparam)
    expect(run(3, [], i386)).toBe(eperm); // i386 read: the whole i386 table
  });

  it('denies the issue-26 paths: pinned pipe pages, tmpfs xattrs, legacy AIO, page-cache probes, sysinfo', () => {
    const filter = seccompFilter('x64');
    const run = (nr: number, args: number[] = []) => interpret(filter, nr, x86_64, args);
    for (const nr of [275, 276, 278]) expect(run(nr)).toBe(eperm); // splice, tee, vmsplice
    for (const nr of [188, 189, 190, 463]) expect(run(nr)).toBe(eperm); // setxattr, l-, f-, setxattrat
    for (const nr of [206, 207, 208, 209, 210, 333]) expect(run(nr)).toBe(eperm); // io_setup … io_pgetevents
    expect(run(99)).toBe(eperm); // sysinfo
    // ENOSYS, so that glibc falls back: preadv2 → preadv, pwritev2 → pwritev (no flags); cachestat
    for (const nr of [327, 328, 451]) expect(run(nr)).toBe(enosys);
    // still allowed: reading and removing xattrs, sendfile, preadv/pwritev, futex, mincore, fadvise
    for (const nr of [191, 192, 193, 194, 197, 40, 295, 296, 202, 27, 221]) expect(run(nr)).toBe(allow);
    expect(run(434)).toBe(enosys); // pidfd_open
    expect(run(56, [0x00001011])).toBe(eperm); // clone(CLONE_PIDFD | SIGCHLD)
    expect(deniedNames.unavailable).toEqual(['preadv2', 'pwritev2', 'cachestat', 'pidfd_open', 'clone3']);
  });

  it('lists every syscall once and refuses other architectures', () => {
    const numbers = filterProgram().flatMap((instruction) =>
      instruction.op === 'jeq' && instruction.ifTrue === 'deny' ? [instruction.value] : [],
    );
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(deniedNames.syscalls).toContain('memfd_create');
    expect(deniedNames.fcntlCommands).toContain('F_OFD_SETLK');
    expect(() => seccompFilter('arm64')).toThrow(/x86_64/);
  });
});
