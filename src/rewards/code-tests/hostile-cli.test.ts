// Hostile programs through the real `curricula reward check` CLI, launched the way a CI runner or a shell
// with `exec 3<dir` might launch it: by bash, with extra directory descriptors (3, 9, 17, 40) open on a
// host directory that the sandbox user could write to, and with a secret in its environment. (In our runs
// node itself marked the low-numbered descriptors close-on-exec at startup, so without the fix it is 17
// and 40 that reach the sandbox.) Programs hunt for those descriptors (/proc/self/fd, openat(fd, ...),
// fchdir, /proc/self/fd/N/..., a brute-force fstat of 3..1023) and try to create a file there; one looks
// for the secret in every /proc/*/environ; others write terminal escape sequences to stderr and stdout or
// hide them in a fence tag. Afterwards the host directory must be empty, every case must score its
// expected 0, the secret must appear nowhere, and the human output must hold no escape sequence or
// control character but newline.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrap } from '../../../test/requirements.ts';
import {
  completion,
  type HostileCase,
  hostileProblem,
} from '../../testing/rewards/code-tests/hostile-helpers.ts';

const bin = join(import.meta.dirname, '../../../bin/curricula.mjs');
const extraDescriptors = [3, 9, 17, 40];
const secretName = 'CURRICULA_HOSTILE_CLI_SECRET';
const secret = `hf_${randomUUID().replaceAll('-', '')}`;
// Spelled backwards in the program: its own text lies in pid 1's memory.
const reversedNeedle = [...`${secretName}=hf_`].reverse().join('');

// Python: every way to reach a directory descriptor; prints `escaped` when a file could be created there.
const descriptorHunter = `import os, stat, sys
def attempt(fd):
    for how in ("openat", "dotdot", "proc", "fchdir"):
        try:
            if how == "openat":
                made = os.open("escaped-openat", os.O_CREAT | os.O_WRONLY, dir_fd=fd)
            elif how == "dotdot":
                parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                made = os.open(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")) + "/escaped-dotdot", os.O_CREAT | os.O_WRONLY, dir_fd=parent)
            elif how == "proc":
                made = os.open(f"/proc/self/fd/{fd}/escaped-proc", os.O_CREAT | os.O_WRONLY)
            else:
                os.fchdir(fd)
                made = os.open("escaped-fchdir", os.O_CREAT | os.O_WRONLY)
            os.write(made, b"x")
            print("escaped")
            sys.exit(0)
        except OSError:
            pass
listed = [int(fd) for fd in os.listdir("/proc/self/fd")]
for fd in sorted(set(listed + list(range(3, 1024)))):
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            attempt(fd)
    except OSError:
        pass
print("kept in", sorted(listed))`;

const cases: (HostileCase & { prediction?: string; call?: boolean })[] = [
  { name: 'descriptor hunter (stdio test)', code: descriptorHunter },
  {
    name: 'descriptor hunter (function-call test: two files and the filter on 3..5)',
    code: `def solve():\n    import io, contextlib\n    with contextlib.redirect_stdout(io.StringIO()) as out:\n        try:\n${descriptorHunter
      .split('\n')
      .map((line) => `            ${line}`)
      .join('\n')}\n        except SystemExit:\n            pass\n    return out.getvalue().strip()`,
    call: true,
  },
  {
    name: 'node: /proc/self/fd/N/escaped for every descriptor',
    language: 'javascript',
    code: `const fs = require('fs');
let hit = false;
for (const fd of fs.readdirSync('/proc/self/fd')) {
  try { fs.writeFileSync('/proc/self/fd/' + fd + '/escaped-node', 'x'); hit = true; } catch {}
}
console.log(hit ? 'escaped' : 'none');`,
  },
  {
    name: 'the secret in any /proc/*/environ',
    code: `import os
data = b""
for pid in os.listdir("/proc"):
    try:
        data += open(f"/proc/{pid}/environ", "rb").read()
    except OSError:
        pass
print("escaped" if "${reversedNeedle}"[::-1].encode() in data else "none")`,
  },
  {
    name: 'terminal escapes on stderr, then a crash',
    code: `import sys
sys.stderr.write("\\x1b]0;owned\\x07\\x1b[2J\\x1b[H\\rreward 1  ok\\x9b31m\\x1bP+q\\x1b\\\\\\x08\\x08\\u202e\\n")
sys.stderr.write("last \\x1b[31mred\\x1b[0m \\x07bell\\x1b]8;;http://x\\x1b\\\\link\\x1b]8;;\\x1b\\\\ \\x9d2;t\\x07\\r\\n")
sys.exit(1)`,
  },
  {
    name: 'terminal escapes on stdout (wrong answer preview)',
    code: `print("\\x1b[2K\\x1b[1A\\r\\x9b2Jok \\x1b]52;c;cGF5bG9hZA==\\x07")`,
  },
  {
    name: 'node: escapes in an uncaught error',
    language: 'javascript',
    code: `throw new Error('\\x1b]0;owned\\x07\\x1b[2J\\r\\u009b1mfake');`,
  },
  {
    name: 'escapes in the fence tag of a completion with no python block',
    code: '',
    prediction: '```\u001b]0;owned\u0007\u001b[2Jx\nprint(1)\n```',
  },
];

let hostDir: string;
let output: { code: number | null; stdout: string; stderr: string };

const sandbox = bubblewrap();

describe.skipIf(sandbox.skip)(
  `reward check launched with inherited directory descriptors${sandbox.label}`,
  () => {
    beforeAll(async () => {
      hostDir = mkdtempSync(join(tmpdir(), 'code-tests-fd-escape-'));
      chmodSync(hostDir, 0o777);
      const file = join(hostDir, '..', `${hostDir.split('/').pop()}.jsonl`);
      const lines = cases.map((entry) => {
        const problem = hostileProblem(entry);
        if (entry.call) problem.metadata!.tests = [{ fn: 'solve', args: [], expected: 'escaped' }];
        return JSON.stringify({ problem, prediction: entry.prediction ?? completion(entry), expected: 0 });
      });
      writeFileSync(file, `${lines.join('\n')}\n`);
      const options = JSON.stringify({ timeoutMs: 4000, concurrency: 4 });
      const args = [bin, 'reward', 'check', '--reward', 'code-tests', '--options', options, '--input', file];
      // The descriptors a careless launcher leaves open: directory descriptors without close-on-exec.
      const redirections = extraDescriptors.map((fd) => `${fd}<"$0"`).join(' ');
      const launcher = ['-c', `exec ${redirections}; exec "$@"`, hostDir, process.execPath, ...args];
      output = await new Promise((resolve) => {
        const env = { ...process.env, [secretName]: secret };
        const child = spawn('/bin/bash', launcher, { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (chunk) => {
          stdout += chunk;
        });
        child.stderr!.on('data', (chunk) => {
          stderr += chunk;
        });
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      rmSync(file, { force: true });
    }, 120_000);

    afterAll(() => {
      rmSync(hostDir, { recursive: true, force: true });
    });
    it('no program reaches the host directory; every case scores its expected 0', () => {
      expect(output.stderr).toBe('');
      expect(readdirSync(hostDir)).toEqual([]);
      const lines = output.stdout.trim().split('\n');
      expect(lines).toHaveLength(cases.length + 1);
      expect(lines.at(-1)).toContain(`agreement ${cases.length}/${cases.length}`);
      expect(output.code).toBe(0);
      expect(output.stdout).not.toContain(secret);
      // The hunter ran to the end and saw the leaked descriptors (as /dev/null, not as the directory).
      expect(lines[0]).toMatch(/kept in \[0, 1, 2, 3, .*17, 40/);
    });

    it('the human output carries no terminal escape or control character', () => {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
      expect(output.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(output.stdout).toContain('RE exit 1: last red belllink;'); // the text around them is kept
      expect(output.stdout).toContain('fences found: ');
    });
  },
);
