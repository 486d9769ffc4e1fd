// How much two busy cores slow each other down on this machine, with nothing shared in software: the
// in-process training step (forwardBackward + AdamW) on half of the demo's RL batch, run in one process
// alone, then in two processes at once. Two workers cannot beat 2 / slowdown on a step that splits
// perfectly, so this is the ceiling of `bench train --workers 1,2` on the machine it runs on (shared
// caches, memory bandwidth, a host's frequency and neighbours), independent of the worker backend. Run:
//
//   node --import tsx src/bench/scripts/core-contention.ts [checkpointDir] [steps]
//
// It prints JSON: ms per step alone and together (medians over the steps of each process), the slowdown,
// the implied speed-up ceiling and the load average before and after.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { median } from '../median.ts';
import { demoBatch } from './parallel-speed.ts';

/** Child: `steps` timed steps after 2 untimed ones; prints the per-step ms as JSON. */
async function child(dir: string, steps: number): Promise<void> {
  const backend = await EmbeddedBackend.load(dir, { maxTokensPerMicroBatch: 2048 });
  const half = demoBatch().slice(0, 64);
  const times: number[] = [];
  for (let step = 0; step < steps + 2; step++) {
    const start = performance.now();
    await backend.forwardBackward(half, 'linear');
    await backend.optimStep({ learningRate: 1e-5 });
    if (step >= 2) times.push(performance.now() - start);
  }
  console.log(JSON.stringify(times));
}

function runChild(dir: string, steps: number): Promise<number[]> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const process = spawn('node', ['--import', 'tsx', script, '--child', dir, String(steps)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    process.stdout.on('data', (chunk) => {
      output += chunk;
    });
    process.on('error', reject);
    process.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(output) as number[]) : reject(new Error(`child exited ${code}`)),
    );
  });
}

async function main(dir: string, steps: number): Promise<void> {
  const loadBefore = loadavg();
  const alone = median(await runChild(dir, steps));
  const together = (await Promise.all([runChild(dir, steps), runChild(dir, steps)])).map(median);
  const slowdown = median(together) / alone;
  console.log(
    JSON.stringify(
      {
        msPerStepAlone: alone,
        msPerStepTogether: together,
        slowdown,
        speedupCeiling: 2 / slowdown,
        loadAverage: [loadBefore, loadavg()],
      },
      null,
      2,
    ),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') await child(args[1], Number(args[2]));
  else await main(args[0] ?? 'examples/checkpoints/demo-cold', Number(args[1] ?? 10));
}
