// Hostile programs, run for real in the sandbox. Each must score 0 with a reason, leave nothing behind, and
// leave the caller able to grade the next completion. Markers (random per test) let us look for survivors in
// the host's /proc; a host TCP server on loopback and a host directory check network and file escapes.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import type { Problem } from '../../core/problem.ts';
import { codeProblem } from '../../testing/rewards/test-problems.ts';
import { CodeTestsReward } from './reward.ts';

const sandbox = bubblewrap();
const reward = unlessSkipped(
  sandbox,
  () =>
    new CodeTestsReward({
      timeoutMs: 1000,
      memoryMb: 256,
      maxOutputBytes: 64 * 1024,
      concurrency: 2,
    }),
);

function problem(tests: unknown, language = 'python'): Problem {
  return codeProblem({ tests, language }, `hostile/${randomUUID()}`);
}

const okTest = [{ input: '', output: 'ok' }];

/** Host processes whose command line contains `marker`. */
function survivors(marker: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(marker)) found.push(`${entry}: ${cmdline.replaceAll('\0', ' ')}`);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

async function score(code: string, tests: unknown = okTest, language = 'python') {
  const fence = language === 'python' ? 'python' : 'js';
  return reward.evaluate(problem(tests, language), `\`\`\`${fence}\n${code}\n\`\`\``);
}

afterAll(async () => {
  if (sandbox.skip) return;
  // The caller is still fine: a correct program still scores 1 after every attack above.
  const report = await score('print(input()[::-1])', [{ input: 'abc', output: 'cba' }]);
  expect(report.result.reward).toBe(1);
  await reward.close();
});

describe.skipIf(sandbox.skip)(`hostile programs are contained and score 0${sandbox.label}`, () => {
  it('fork bomb: stopped by RLIMIT_NPROC and the wall clock, no process survives', async () => {
    const marker = `fork-bomb-${randomUUID()}`;
    const bomb =
      'import os\\nwhile True:\\n    try:\\n        os.fork()\\n    except OSError:\\n        pass';
    const code = `import os\nos.execv("/usr/bin/python3", ["python3", "-c", "${bomb}", "${marker}"])`;
    const report = await score(code);
    expect(report.result.reward).toBe(0);
    expect(report.tests[0].status).toBe('TLE');
    expect(report.result.reason).toContain('TLE');
    expect(survivors(marker)).toEqual([]);
  });

  it('infinite loop (python and node): killed at the wall-clock limit', async () => {
    const started = performance.now();
    const [python, node] = await Promise.all([
      score('while True:\n    pass'),
      score('for (;;) {}', okTest, 'javascript'),
    ]);
    expect(performance.now() - started).toBeLessThan(5000);
    for (const report of [python, node]) {
      expect(report.result.reward).toBe(0);
      expect(report.tests[0].status).toBe('TLE');
      expect(report.tests[0].wallMs).toBeGreaterThanOrEqual(950);
    }
  });

  it('memory hogs: python under RLIMIT_AS, node under its heap limit and RLIMIT_DATA, many processes under the watchdog', async () => {
    // A small limit keeps this fast: page faulting runs at ~100 MB/s on the shared CI machines.
    const small = new CodeTestsReward({ timeoutMs: 8000, memoryMb: 64, concurrency: 4 });
    const hogs: [string, string][] = [
      ['python', 'chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))'],
      ['javascript', 'const b = []; for (;;) b.push(Buffer.allocUnsafe(64 * 1024 * 1024).fill(1, 0, 4096));'],
      ['javascript', 'const a = []; for (;;) a.push(new Array(100000).fill(1.5));'],
      // Nine processes, each filling its own RLIMIT_AS and then waiting: only the watchdog sees the sum.
      [
        'python',
        'import os, time\ndef hog():\n    chunks = []\n    try:\n        while True:\n            chunks.append(bytearray(4 << 20))\n    except MemoryError:\n        time.sleep(60)\nfor _ in range(8):\n    if os.fork() == 0:\n        hog()\nhog()',
      ],
    ];
    const reports = await Promise.all(
      hogs.map(([language, code]) =>
        small.evaluate(
          problem(okTest, language),
          `\`\`\`${language === 'python' ? 'python' : 'js'}\n${code}\n\`\`\``,
        ),
      ),
    );
    for (const report of reports) {
      expect(report.result.reward).toBe(0);
      expect(report.tests[0].status).toBe('MLE');
    }
    expect(reports[3].tests[0].detail).toContain('sandbox processes together passed 192 MiB');
  });

  it('gigabytes of output: killed at the stdout/stderr cap; a huge file hits RLIMIT_FSIZE', async () => {
    const started = performance.now();
    const [stdout, stderr, file] = await Promise.all([
      score('import sys\nwhile True:\n    sys.stdout.write("x" * 65536)'),
      score('for (;;) process.stderr.write("y".repeat(65536));', okTest, 'javascript'),
      score('with open("/work/big", "w") as f:\n    while True:\n        f.write("z" * 1048576)'),
    ]);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(stdout.tests[0]).toMatchObject({ status: 'OLE', detail: expect.stringContaining('stdout') });
    expect(stderr.tests[0]).toMatchObject({ status: 'OLE', detail: expect.stringContaining('stderr') });
    expect(file.tests[0]).toMatchObject({ status: 'OLE', detail: 'file size limit' });
    for (const report of [stdout, stderr, file]) expect(report.result.reward).toBe(0);
  });

  it('writing outside the work directory fails; the host sees nothing', async () => {
    // A host directory that uid 65534 could write to if it were visible.
    const hostDir = mkdtempSync(join(tmpdir(), 'code-tests-escape-'));
    chmodSync(hostDir, 0o777);
    try {
      const targets = [
        `${hostDir}/escaped`,
        '/usr/escaped',
        '/etc/escaped',
        '/escaped',
        '/sandbox/solution.py',
      ];
      const reports = await Promise.all(
        targets.map((path) => score(`open(${JSON.stringify(path)}, "w").write("x")\nprint("ok")`)),
      );
      for (const report of reports) {
        expect(report.result.reward).toBe(0);
        expect(report.tests[0].status).toBe('RE');
        expect(report.tests[0].detail).toMatch(/Read-only file system|No such file or directory/);
      }
      expect(readdirSync(hostDir)).toEqual([]);
      expect(existsSync('/usr/escaped')).toBe(false);
      expect(existsSync('/escaped')).toBe(false);
      // The work directory is writable but private to one run: the next run starts empty.
      const first = await score(
        'open("/work/left.txt", "w").write("x")\nimport os\nprint("ok" if os.path.exists("/work/left.txt") else "no")',
      );
      const second = await score('import os\nprint("ok" if os.path.exists("/work/left.txt") else "fresh")');
      expect(first.result.reward).toBe(1);
      expect(second.tests[0].detail).toContain('fresh');
    } finally {
      rmSync(hostDir, { recursive: true, force: true });
    }
  });

  it('network: no socket, and no route even to the host loopback', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end('ok\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const [python, node] = await Promise.all([
        score(
          `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=1)\nprint(s.recv(10).decode())`,
        ),
        score(
          `const s = require('net').connect(${port}, '127.0.0.1'); s.on('data', (d) => process.stdout.write(d)); s.on('error', (e) => { console.error(e.message); process.exit(1); });`,
          okTest,
          'javascript',
        ),
      ]);
      for (const report of [python, node]) {
        expect(report.result.reward).toBe(0);
        expect(report.tests[0].status).toBe('RE');
        expect(report.tests[0].detail).toMatch(
          // the seccomp filter denies socket(2) with EPERM; without it the fresh network namespace answers
          /ECONNREFUSED|ENETUNREACH|EPERM|Connection refused|Network is unreachable|Operation not permitted/,
        );
      }
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('reading the expected output: it is never inside the sandbox', async () => {
    const secret = `SECRET-${randomUUID()}`;
    const hunter = `import os, sys
found = []
data = sys.stdin.read() + " ".join(sys.argv) + " ".join(f"{k}={v}" for k, v in os.environ.items())
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for name in ("cmdline", "environ"):
        try:
            data += open(f"/proc/{pid}/{name}", "rb").read().decode("latin-1")
        except OSError:
            pass
for root in ("/sandbox", "/work", "/tmp", "/dev/shm", "/etc"):
    for directory, _, files in os.walk(root):
        for file in files:
            path = os.path.join(directory, file)
            if os.path.islink(path):  # links point into /usr (host system files)
                continue
            try:
                data += open(path, "rb").read(1 << 20).decode("latin-1")
            except OSError:
                pass
import re
match = re.search(r"SECRET-[0-9a-f]{8}-[0-9a-f-]{27}", data)
print(match.group(0) if match else "not found")`;
    const report = await score(hunter, [{ input: 'x', output: secret }]);
    expect(report.result.reward).toBe(0);
    expect(report.tests[0].status).toBe('WA');
    expect(report.tests[0].detail).toContain('not found');
    expect(report.result.reason).not.toContain(secret);
    // Positive control: the same search finds the secret when it is given as stdin.
    const control = await score(hunter, [{ input: secret, output: secret }]);
    expect(control.result.reward).toBe(1);

    // A function-call test: the function walks the harness's frames and globals.
    const frameHunter = `def solve():
    import sys, gc
    seen = []
    frame = sys._getframe()
    while frame:
        seen.append(repr(frame.f_locals) + repr(frame.f_globals))
        frame = frame.f_back
    seen += [repr(o) for o in gc.get_objects() if isinstance(o, (dict, list))]
    import re
    match = re.search(r"SECRET-[0-9a-f]{8}-[0-9a-f-]{27}", " ".join(seen))
    return match.group(0) if match else "not found"`;
    const call = await score(frameHunter, [{ fn: 'solve', args: [], expected: secret }]);
    expect(call.tests[0].status).toBe('WA');
    expect(call.tests[0].detail).toContain('not found');
  });

  it('signalling or killing the parent, init, or everything (kill -9 -1) reaches nothing outside', async () => {
    // A host process of the very uid the sandbox runs as: outside the pid namespace, so unreachable.
    const sandboxUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const sentinel = spawn('/usr/bin/sleep', ['30'], { ...sandboxUser, stdio: 'ignore' });
    try {
      const targets = [process.pid, process.ppid, sentinel.pid!];
      const code = `import os, subprocess
for pid in [os.getppid(), 1, -1, ${targets.join(', ')}]:
    try:
        os.kill(pid, 9)
    except OSError as e:
        print(pid, e)
subprocess.run(["/bin/sh", "-c", "kill -9 -1"])
print("still here")`;
      const [python, node] = await Promise.all([
        score(code),
        score(
          `for (const pid of [process.ppid, 1, ${targets.join(', ')}]) { try { process.kill(pid, 'SIGKILL'); } catch (e) { console.log(pid, e.code); } }`,
          okTest,
          'javascript',
        ),
      ]);
      for (const report of [python, node]) {
        expect(report.result.reward).toBe(0);
        expect(['WA', 'RE', 'TLE']).toContain(report.tests[0].status);
      }
      expect(sentinel.exitCode).toBeNull();
      expect(() => process.kill(sentinel.pid!, 0)).not.toThrow();
    } finally {
      sentinel.kill('SIGKILL');
    }
  });

  it('background processes do not outlive the run', async () => {
    const marker = `daemon-${randomUUID()}`;
    const python = `import os, subprocess
subprocess.Popen(["/usr/bin/python3", "-c", "import signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); time.sleep(60)", "${marker}"],
                 start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/usr/bin/sleep", ["sleep", "60", "--", "${marker}"])
    os._exit(0)
print("bye")`;
    const node = `require('child_process').spawn('/usr/bin/python3', ['-c', 'import time; time.sleep(60)', '${marker}'], { detached: true, stdio: 'ignore' }).unref(); console.log('bye');`;
    const [pythonReport, nodeReport, holder, stuck] = await Promise.all([
      score(python),
      score(node, okTest, 'javascript'),
      // A child that keeps our stdout pipe open must not hold the run until the time limit.
      score(
        `import subprocess\nsubprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(60)", "${marker}"])\nprint("bye")`,
      ),
      // Also when the main program is the one killed at the time limit.
      score(
        `import subprocess, time\nsubprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(60)", "${marker}"])\ntime.sleep(60)`,
      ),
    ]);
    expect(pythonReport.tests[0]).toMatchObject({ status: 'WA' });
    expect(nodeReport.tests[0]).toMatchObject({ status: 'WA' });
    expect(holder.tests[0]).toMatchObject({ status: 'WA' });
    expect(stuck.tests[0]).toMatchObject({ status: 'TLE' });
    expect(survivors(marker)).toEqual([]);
  });
});
