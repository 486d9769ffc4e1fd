// Prints the table of README.md from the raw JSON of run.sh (one row per batch and round).
//   node --import tsx experiments/bench-2026-12-07/analyze.ts
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Run {
  train: { tokensPerSecond: number };
  trainRatioToTorch: number;
  sampleRatioToTorch: number;
}
const lines = [
  '| batch | round | ours, tokens/s (1 worker × 2 threads) | best PyTorch cell, tokens/s | training ratio | sampling ratio (batch 64) |',
  '|---|---|---|---|---|---|',
];
for (const batch of [8, 32]) {
  for (const round of [1, 2, 3]) {
    const file = join(import.meta.dirname, `policy-b${batch}-r${round}.json`);
    const run = (JSON.parse(readFileSync(file, 'utf8')) as { configs: { runs: Run[] }[] }).configs[0].runs[0];
    const ours = run.train.tokensPerSecond;
    lines.push(
      `| ${batch} | ${round} | ${Math.round(ours)} | ${Math.round(ours / run.trainRatioToTorch)} | ${run.trainRatioToTorch.toFixed(3)} | ${run.sampleRatioToTorch.toFixed(3)} |`,
    );
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
