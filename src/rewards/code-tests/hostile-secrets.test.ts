// Hostile programs after the trainer's secrets: a secret environment variable is set in this (the
// trainer's) process, and programs look for it wherever a sandboxed process could see it: their own
// environment, /proc/1/environ (bwrap's pid 1 inside the sandbox keeps the environment bwrap was started
// with), every /proc/*/environ, /proc/1/mem, ptrace and process_vm_readv on pid 1, and the trainer's own pid.
// Each prints `escaped` when it finds `NAME=hf_` (so reward 1 = escape, hostile-helpers.ts); the
// secret's value must also never appear in any reason, detail or output.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import { escapes, type HostileCase, runHostile } from '../../testing/rewards/code-tests/hostile-helpers.ts';
import { CodeTestsReward } from './reward.ts';

const secretName = 'CURRICULA_HOSTILE_SECRET';
const secret = `hf_${randomUUID().replaceAll('-', '')}`;
// Set before the reward spawns anything: the sandbox must not pass it on, whoever inherits what.
process.env[secretName] = secret;

const sandbox = bubblewrap();
const reward = unlessSkipped(
  sandbox,
  () => new CodeTestsReward({ timeoutMs: 4000, memoryMb: 256, concurrency: 4 }),
);
afterAll(() => reward?.close());

// Python: `found(data)` prints `escaped` and exits when data holds the variable's name.
const pythonPrelude = `import os, sys, re
def found(data):
    if isinstance(data, str):
        data = data.encode("latin-1", "replace")
    # Spelled backwards: the program's own text lies in pid 1's memory (bwrap read it from a pipe).
    if b"${[...`${secretName}=hf_`].reverse().join('')}"[::-1] in data:
        print("escaped")
        sys.exit(0)
def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""
`;

const cases: HostileCase[] = [
  {
    name: 'own environment',
    code: `${pythonPrelude}found(repr(dict(os.environ)))\nfound(read("/proc/self/environ"))\nprint("none")`,
  },
  { name: '/proc/1/environ', code: `${pythonPrelude}found(read("/proc/1/environ"))\nprint("none")` },
  {
    name: 'every /proc/*/environ and task environ',
    code: `${pythonPrelude}for pid in [p for p in os.listdir("/proc") if p.isdigit()] + ["self", "thread-self"]:
    found(read(f"/proc/{pid}/environ"))
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tasks = []
    for task in tasks:
        found(read(f"/proc/{pid}/task/{task}/environ"))
print("none")`,
  },
  {
    name: '/proc/1/mem, every readable mapping',
    code: `${pythonPrelude}maps = read("/proc/1/maps").decode()
try:
    mem = open("/proc/1/mem", "rb")
except OSError as e:
    print("no mem", e); sys.exit(0)
for line in maps.splitlines():
    span, perms = line.split()[:2]
    if "r" not in perms:
        continue
    start, end = (int(x, 16) for x in span.split("-"))
    try:
        mem.seek(start)
        found(mem.read(min(end - start, 1 << 24)))
    except (OSError, OverflowError, ValueError):
        pass
print("none")`,
  },
  {
    name: 'ptrace PEEKDATA on pid 1',
    code: `${pythonPrelude}import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
if libc.ptrace(16, 1, None, None) != 0:  # PTRACE_ATTACH
    print("attach failed", ctypes.get_errno()); sys.exit(0)
os.waitpid(1, 0x40000000)  # __WALL
stack = [l for l in read("/proc/1/maps").decode().splitlines() if "[stack]" in l][0]
start, end = (int(x, 16) for x in stack.split()[0].split("-"))
words = bytearray()
for address in range(start, end, 8):
    ctypes.set_errno(0)
    word = libc.ptrace(2, 1, ctypes.c_void_p(address), None)  # PTRACE_PEEKDATA
    words += (word & (2**64 - 1)).to_bytes(8, "little")
found(bytes(words))
print("none")`,
  },
  {
    name: 'process_vm_readv on pid 1',
    code: `${pythonPrelude}import ctypes
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
libc = ctypes.CDLL(None, use_errno=True)
libc.process_vm_readv.restype = ctypes.c_ssize_t
stack = [l for l in read("/proc/1/maps").decode().splitlines() if "[stack]" in l]
if not stack:
    print("no maps"); sys.exit(0)
start, end = (int(x, 16) for x in stack[0].split()[0].split("-"))
buffer = ctypes.create_string_buffer(end - start)
local = iovec(ctypes.cast(buffer, ctypes.c_void_p), end - start)
remote = iovec(start, end - start)
n = libc.process_vm_readv(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
if n < 0:
    print("denied", ctypes.get_errno()); sys.exit(0)
found(buffer.raw[:n])
print("none")`,
  },
  {
    name: "the trainer's own pid and its parent",
    code: `${pythonPrelude}for pid in (${process.pid}, ${process.ppid}):
    found(read(f"/proc/{pid}/environ"))
print("none")`,
  },
  {
    name: 'node: process.env and /proc/1/environ',
    language: 'javascript',
    code: `const fs = require('fs');
let data = JSON.stringify(process.env);
for (const path of ['/proc/1/environ', '/proc/self/environ', '/proc/2/environ']) {
  try { data += fs.readFileSync(path, 'latin1'); } catch {}
}
const needle = '${[...`${secretName}=hf_`].reverse().join('')}'.split('').reverse().join('');
console.log(data.includes(needle) ? 'escaped' : 'none');`,
  },
  {
    name: 'node: /proc/1/mem',
    language: 'javascript',
    code: `const fs = require('fs');
let hit = false;
const needle = '${[...`${secretName}=hf_`].reverse().join('')}'.split('').reverse().join('');
try {
  const fd = fs.openSync('/proc/1/mem', 'r');
  for (const line of fs.readFileSync('/proc/1/maps', 'utf8').trim().split('\\n')) {
    const [span, perms] = line.split(' ');
    if (!perms.includes('r')) continue;
    const [start, end] = span.split('-').map((x) => BigInt('0x' + x));
    const length = Number(end - start > 1n << 24n ? 1n << 24n : end - start);
    const buffer = Buffer.alloc(length);
    try { fs.readSync(fd, buffer, 0, length, start); } catch { continue; }
    if (buffer.includes(needle)) hit = true;
  }
} catch (e) { console.error(e.message); }
console.log(hit ? 'escaped' : 'none');`,
  },
];

describe.skipIf(sandbox.skip)(
  `hostile programs cannot read the trainer's environment${sandbox.label}`,
  () => {
    it(`${cases.length} programs: no escape, and the secret's value appears nowhere`, async () => {
      const reports = await runHostile(reward, cases);
      expect(escapes(cases, reports)).toEqual([]);
      for (const report of reports) {
        expect(JSON.stringify(report)).not.toContain(secret);
        expect(report.result.reward).toBe(0);
      }
      // The programs did run: the /proc/1/mem reader got as far as opening it (it is pid 1's memory that no
      // longer holds the variable), so the test would see the name if it were there.
      expect(reports[3].tests[0].detail).toContain('none');
    });
  },
);
