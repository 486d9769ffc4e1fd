// Timing of the `curricula bench policy` measurements: warm-ups, then timed repetitions, each timed on
// the wall clock and in CPU time (process.cpuUsage counts every thread of the process, worker threads
// included), reduced to medians and tokens per second.
import { median } from './median.ts';

export interface Measurement {
  /** Tokens per wall-clock second (median run). */
  tokensPerSecond: number;
  medianMs: number;
  /** Tokens per second of this process's CPU time (median run): less sensitive to a busy machine. */
  tokensPerCpuSecond: number;
  cpuMedianMs: number;
  tokensPerRun: number;
  runsMs: number[];
}

export interface Timings {
  runsMs: number[];
  cpuMs: number[];
}

/** Runs `body` warmup + repeats times; returns the timed wall and CPU durations in ms. */
export async function timeRuns(
  warmup: number,
  repeats: number,
  body: () => Promise<unknown> | unknown,
): Promise<Timings> {
  for (let i = 0; i < warmup; i++) await body();
  const timings: Timings = { runsMs: [], cpuMs: [] };
  for (let i = 0; i < repeats; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await body();
    timings.runsMs.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    timings.cpuMs.push((cpu.user + cpu.system) / 1000);
  }
  return timings;
}

export function measurement(tokensPerRun: number, timings: Timings): Measurement {
  const medianMs = median(timings.runsMs);
  const cpuMedianMs = median(timings.cpuMs);
  return {
    tokensPerSecond: (tokensPerRun / medianMs) * 1000,
    medianMs,
    tokensPerCpuSecond: (tokensPerRun / cpuMedianMs) * 1000,
    cpuMedianMs,
    tokensPerRun,
    runsMs: timings.runsMs,
  };
}

export const fmt = (value: number) =>
  value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
