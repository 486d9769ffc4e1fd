// Wall-clock time per phase of a step, reported as perf/time/<phase> (seconds) and perf/share/<phase>.
export class PhaseTimer {
  private readonly seconds = new Map<string, number>();
  private readonly start = performance.now();

  time<T>(phase: string, run: () => T): T {
    const begin = performance.now();
    try {
      return run();
    } finally {
      this.add(phase, begin);
    }
  }

  async timeAsync<T>(phase: string, run: () => Promise<T>): Promise<T> {
    const begin = performance.now();
    try {
      return await run();
    } finally {
      this.add(phase, begin);
    }
  }

  metrics(): Record<string, number> {
    const total = (performance.now() - this.start) / 1000;
    const metrics: Record<string, number> = { 'perf/step_seconds': total };
    for (const [phase, seconds] of this.seconds) {
      metrics[`perf/time/${phase}`] = seconds;
      metrics[`perf/share/${phase}`] = total > 0 ? seconds / total : 0;
    }
    return metrics;
  }

  private add(phase: string, begin: number): void {
    this.seconds.set(phase, (this.seconds.get(phase) ?? 0) + (performance.now() - begin) / 1000);
  }
}
