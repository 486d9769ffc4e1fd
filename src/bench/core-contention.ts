// How much two busy cores slow each other down on this machine, with nothing shared in software (issue 29
// item 4): the in-process training step (forwardBackward + AdamW, one thread) on half of the demo's RL
// batch, run in one process alone, then in two processes at once. Two workers cannot beat 2 / slowdown on
// a step that splits perfectly, so this is the ceiling of `bench train --workers 1,2` on the machine it
// runs on (shared caches, memory bandwidth, a host's frequency and neighbours), independent of the worker
// backend. `bench train` measures it in the same run, before its own steps; the child is
// core-contention-child.ts.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isTypeScriptModule, siblingModule } from '../core/sibling-module.ts';
import type { TrainEngine } from '../policy/parallel-options.ts';
import { median } from './median.ts';

export interface CoreContention {
  /** Median ms per step of one process alone. */
  msPerStepAlone: number;
  /** Median ms per step of each of the two processes running together. */
  msPerStepTogether: [number, number];
  /** Median of the two together / alone. */
  slowdown: number;
  /** 2 / slowdown: the most two workers can gain over one here. */
  speedupCeiling: number;
  loadAverage: [number, number];
}

export interface CoreContentionOptions {
  /** Checkpoint whose model the step trains (default: the demo's cold start). */
  checkpoint: string;
  /** Timed steps per process (after 2 untimed). */
  steps: number;
  /** policy.engine of the step (default tfjs); the native engine runs on 1 thread here. */
  engine?: TrainEngine;
}

const childModule = siblingModule('./core-contention-child.ts', import.meta.url);

function runChild(options: CoreContentionOptions): Promise<number[]> {
  const script = fileURLToPath(childModule);
  const args = [
    ...(isTypeScriptModule(childModule) ? ['--import', 'tsx'] : []),
    script,
    options.checkpoint,
    String(options.steps),
    options.engine ?? 'tfjs',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      errors += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(
          new Error(`core-contention child exited with ${code}: ${errors.trim().split('\n').at(-1) ?? ''}`),
        );
        return;
      }
      try {
        resolve(JSON.parse(output) as number[]);
      } catch {
        reject(new Error(`core-contention child printed no step times: ${output.slice(0, 200)}`));
      }
    });
  });
}

/** One process alone, then two at once; the ceiling is 2 / (together / alone). */
export async function measureCoreContention(options: CoreContentionOptions): Promise<CoreContention> {
  const before = loadavg()[0];
  const alone = median(await runChild(options));
  const together = (await Promise.all([runChild(options), runChild(options)])).map(median) as [
    number,
    number,
  ];
  const slowdown = median(together) / alone;
  return {
    msPerStepAlone: alone,
    msPerStepTogether: together,
    slowdown,
    speedupCeiling: 2 / slowdown,
    loadAverage: [before, loadavg()[0]],
  };
}
