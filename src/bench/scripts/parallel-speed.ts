// Speed of the worker-parallel backend at the demo's RL batch: forwardBackward + AdamW on 128 sequences
// of 20-70 tokens (16 problems × 8 samples) with the demo's base model (d128, 4 layers, T128), one worker
// (in process) against two, alternating, medians. Run:
//
//   node --import tsx src/bench/scripts/parallel-speed.ts [checkpointDir] [rounds]
//
// It prints two things, because on a shared machine the first can say nothing: (1) wall seconds per
// step for N = 1 and N = 2 with the load average; (2) the CPU seconds (process.cpuUsage, one thread busy)
// of the whole step in process and of each of the two chunks a 2-worker backend runs — on an idle 2-core
// machine a 2-worker step takes about the larger chunk plus the gradient exchange, so whole / max(chunk)
// bounds the speed-up. Under Linux's autogroup scheduling a process's threads share one group's CPU share,
// so while other sessions keep both cores busy a second worker thread adds no CPU at all.
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { ParallelEmbeddedBackend } from '../../policy/parallel-backend.ts';
import { splitByCost } from '../../policy/parallel-split.ts';
import { demoBatch } from '../demo-batch.ts';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function seconds(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - start) / 1000, cpu: (used.user + used.system) / 1e6 };
}

async function main(dir: string, rounds: number): Promise<void> {
  const data = demoBatch();
  const step = (backend: EmbeddedBackend | ParallelEmbeddedBackend) =>
    seconds(async () => {
      await backend.forwardBackward(data, 'linear');
      await backend.optimStep({ learningRate: 0 });
    });
  const one = await EmbeddedBackend.load(dir);
  const two = await ParallelEmbeddedBackend.load(dir, { workers: 2 });
  const loadBefore = loadavg()[0];
  const wall: [number[], number[]] = [[], []];
  try {
    await step(one);
    await step(two);
    for (let round = 1; round <= rounds; round++) {
      wall[0].push((await step(one)).wall);
      wall[1].push((await step(two)).wall);
      console.error(
        `round ${round}: N=1 ${wall[0].at(-1)!.toFixed(2)} s, N=2 ${wall[1].at(-1)!.toFixed(2)} s`,
      );
    }
  } finally {
    await two.close();
  }
  const loadAfter = loadavg()[0];
  // CPU bound: the whole batch in process (budget 4096) against each 2-worker chunk (budget 2048).
  const chunks = splitByCost(
    data.map((datum) => datum.tokens.length - 1),
    2,
  );
  const half = await EmbeddedBackend.load(dir, { maxTokensPerMicroBatch: 2048 });
  const cpu: [number[], number[], number[]] = [[], [], []];
  for (let round = 0; round <= rounds; round++) {
    const whole = await step(one);
    const parts = [];
    for (const [start, end] of chunks) {
      parts.push(
        await seconds(async () => {
          await half.forwardBackward(data.slice(start, end), 'linear');
          await half.optimStep({ learningRate: 0 });
        }),
      );
    }
    if (round === 0) continue;
    cpu[0].push(whole.cpu);
    cpu[1].push(parts[0].cpu);
    cpu[2].push(parts[1].cpu);
  }
  const [whole, chunk0, chunk1] = cpu.map(median);
  console.log(
    JSON.stringify(
      {
        wallSeconds: { workers1: median(wall[0]), workers2: median(wall[1]) },
        wallSpeedup: median(wall[0]) / median(wall[1]),
        loadAverage: [loadBefore, loadAfter],
        cpuSeconds: { whole, chunk0, chunk1 },
        idleSpeedupBound: whole / Math.max(chunk0, chunk1),
        runs: { wall, cpu },
      },
      null,
      2,
    ),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv[2] ?? 'examples/checkpoints/demo-cold', Number(process.argv[3] ?? 5));
}
