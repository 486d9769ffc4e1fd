// Honest programs that lean on what the seccomp filter and the descriptor handling must keep allowing:
// threads, process pools, subprocesses, in-memory sqlite, temporary files, fcntl flags, deep recursion in a
// thread with a larger stack (python); worker threads, readline over stdin, crypto and zlib (node); and
// both see the machine's CPUs with the host-wide /proc counters hidden (os.cpu_count, os.cpus). Each
// must still score 1 (outputs worked out by hand).
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import type { Problem } from '../../core/problem.ts';
import { codeProblem } from '../../testing/rewards/test-problems.ts';
import { CodeTestsReward } from './reward.ts';

const sandbox = bubblewrap();
const reward = unlessSkipped(sandbox, () => new CodeTestsReward({ timeoutMs: 10_000, concurrency: 2 }));
afterAll(() => reward?.close());

function problem(language: string, input: string, output: string): Problem {
  return codeProblem({ tests: [{ input, output }], language }, `honest/${language}`);
}

const python = `import fcntl, multiprocessing, os, sqlite3, subprocess, sys, tempfile, threading
numbers = [int(x) for x in sys.stdin.read().split()]
out = []
box = []
worker = threading.Thread(target=lambda: box.append(sum(numbers)))
worker.start(); worker.join(); out.append(box[0])
with multiprocessing.Pool(2) as pool:
    out.append(sum(pool.map(abs, numbers)))
out.append(subprocess.run(["/usr/bin/echo", "sub"], capture_output=True, text=True).stdout.strip())
db = sqlite3.connect(":memory:")
db.execute("create table t(x)")
db.executemany("insert into t values (?)", [(n,) for n in numbers])
out.append(db.execute("select max(x) from t").fetchone()[0])
with tempfile.TemporaryFile() as f:
    f.write(b"tmp"); f.seek(0); out.append(f.read().decode())
out.append(fcntl.fcntl(0, fcntl.F_GETFL) >= 0)
sys.setrecursionlimit(100000)
threading.stack_size(16 << 20)
def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)
deep = threading.Thread(target=lambda: box.append(depth(20000)))
deep.start(); deep.join(); out.append(box[1])
out.append(os.cpu_count() >= 1 and multiprocessing.cpu_count() >= 1)
print(*out)`;

const javascript = `const { Worker } = require('worker_threads');
const lines = [];
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => lines.push(line));
rl.on('close', () => {
  const numbers = lines.join(' ').split(/\\s+/).filter(Boolean).map(Number);
  const worker = new Worker('const { parentPort, workerData } = require("worker_threads"); parentPort.postMessage(workerData.reduce((a, b) => a + b, 0));', { eval: true, workerData: numbers });
  worker.on('message', (sum) => {
    const digest = require('crypto').createHash('sha256').update('abc').digest('hex').slice(0, 8);
    const roundTrip = require('zlib').gunzipSync(require('zlib').gzipSync('zip')).toString();
    const os = require('os');
    console.log(sum, digest, roundTrip, os.cpus().length > 0 && os.availableParallelism() > 0);
    worker.terminate();
  });
});`;

describe.skipIf(sandbox.skip)(`honest programs under the sandbox hardening${sandbox.label}`, () => {
  it('python: threads, a process pool, a subprocess, sqlite, tempfile, fcntl, deep recursion', async () => {
    // sum 3 + -4 + 5 = 4; sum of |x| = 12; max = 5
    const report = await reward.evaluate(
      problem('python', '3 -4 5\n', '4 12 sub 5 tmp True 20000 True'),
      `\`\`\`python\n${python}\n\`\`\``,
    );
    expect(report.tests[0]).toMatchObject({ status: 'AC' });
  });

  it('node: worker threads, readline over stdin, crypto, zlib', async () => {
    // sha256("abc") = ba7816bf…; 1 + 2 + 3 + 4 = 10
    const report = await reward.evaluate(
      problem('javascript', '1 2\n3 4\n', '10 ba7816bf zip true'),
      `\`\`\`js\n${javascript}\n\`\`\``,
    );
    expect(report.tests[0]).toMatchObject({ status: 'AC' });
  });
});
