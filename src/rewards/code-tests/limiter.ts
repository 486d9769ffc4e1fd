// A counting semaphore for async work: at most `size` tasks run at once, the rest wait in FIFO order.
// The code-tests reward uses it to keep the number of live sandboxes at the pool size. (core/worker-pool.ts
// is a pool of worker threads for synchronous CPU work; sandboxes are child processes, so this is enough.)
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new Error(`Limiter size must be a positive integer, got ${size}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next waiter, so a newcomer cannot overtake it.
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Tasks running now. */
  get running(): number {
    return this.active;
  }
}
