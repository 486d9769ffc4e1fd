// Judge call limits, verl's limiter knobs (`max_concurrent`, `max_rpm`, `max_tpm`): at most `concurrency`
// calls in flight, and two token buckets that refill continuously — requests per minute and tokens per
// minute. A call takes one request and its estimated tokens (prompt characters / 4 + max tokens) before
// it is sent; when the reply reports its usage, the difference is settled, so an over-estimate is given
// back and an under-estimate borrowed from the next calls. Waiters are served in arrival order. The clock
// and sleep are injectable (tests run it on a fake clock).

export interface RateLimitOptions {
  /** Calls in flight at once. */
  concurrency: number;
  /** Requests per minute (undefined: unlimited). */
  requestsPerMinute?: number;
  /** Prompt + completion tokens per minute (undefined: unlimited). */
  tokensPerMinute?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** A bucket of `capacity` units refilled at capacity per 60 s; it may go negative after a settlement. */
class Bucket {
  private level: number;
  private updated: number;

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
  ) {
    this.level = capacity;
    this.updated = now();
  }

  /** Milliseconds until `units` are available (0: now); a request larger than the bucket waits for a full one. */
  waitFor(units: number): number {
    this.refill();
    const needed = Math.min(units, this.capacity) - this.level;
    return needed <= 0 ? 0 : Math.ceil((needed / this.capacity) * 60_000);
  }

  take(units: number): void {
    this.refill();
    this.level -= units;
  }

  give(units: number): void {
    this.refill();
    this.level = Math.min(this.capacity, this.level + units);
  }

  private refill(): void {
    const time = this.now();
    this.level = Math.min(this.capacity, this.level + ((time - this.updated) / 60_000) * this.capacity);
    this.updated = time;
  }
}

/** What a call holds while it runs: `settle` with the tokens it really used, then `release`. */
export interface RateLimitTicket {
  settle(actualTokens: number): void;
  release(): void;
}

export class RateLimiter {
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];
  private readonly requests: Bucket | null;
  private readonly tokens: Bucket | null;
  private readonly sleep: (ms: number) => Promise<void>;
  private gate: Promise<void> = Promise.resolve();
  /** Milliseconds calls spent waiting for the buckets (not for a concurrency slot), in total. */
  waitedMs = 0;

  constructor(private readonly options: RateLimitOptions) {
    const now = options.now ?? (() => performance.now());
    this.requests = options.requestsPerMinute ? new Bucket(options.requestsPerMinute, now) : null;
    this.tokens = options.tokensPerMinute ? new Bucket(options.tokensPerMinute, now) : null;
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
  }

  /** Waits for a slot and for one request and `estimatedTokens` tokens of budget. */
  async acquire(estimatedTokens: number): Promise<RateLimitTicket> {
    await this.slot();
    // One caller at a time waits on the buckets (a promise chain), so budgets go in arrival order and two
    // waiters never both take what was there for one.
    const turn = this.gate.then(() => this.takeBudget(estimatedTokens));
    this.gate = turn.catch(() => undefined);
    await turn;
    let released = false;
    return {
      settle: (actualTokens) => {
        const difference = estimatedTokens - actualTokens;
        if (difference > 0) this.tokens?.give(difference);
        else this.tokens?.take(-difference);
      },
      release: () => {
        if (released) return;
        released = true;
        const next = this.queue.shift();
        if (next) next();
        else this.inFlight--;
      },
    };
  }

  private async takeBudget(estimatedTokens: number): Promise<void> {
    for (;;) {
      const wait = Math.max(this.requests?.waitFor(1) ?? 0, this.tokens?.waitFor(estimatedTokens) ?? 0);
      if (wait === 0) break;
      this.waitedMs += wait;
      await this.sleep(wait);
    }
    this.requests?.take(1);
    this.tokens?.take(estimatedTokens);
  }

  private async slot(): Promise<void> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resume) => this.queue.push(resume));
  }
}
