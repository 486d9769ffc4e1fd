// The judge limiter on a fake clock: waits computed by hand from the bucket sizes.
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.ts';

function fakeClock() {
  let time = 0;
  const slept: number[] = [];
  return {
    now: () => time,
    sleep: async (ms: number) => {
      slept.push(ms);
      time += ms;
    },
    slept,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('RateLimiter', () => {
  it('requests per minute: a bucket of 2 lets two through, the third waits 30 s', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ concurrency: 10, requestsPerMinute: 2, ...clock });
    for (let i = 0; i < 3; i++) (await limiter.acquire(0)).release();
    expect(clock.slept).toEqual([30_000]);
    expect(limiter.waitedMs).toBe(30_000);
  });

  it('tokens per minute: waits for the estimate, and a settled over-estimate is given back', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ concurrency: 10, tokensPerMinute: 1000, ...clock });
    const first = await limiter.acquire(600);
    first.settle(600);
    first.release();
    // 400 left; 600 needs 200 more: 200/1000 of a minute
    (await limiter.acquire(600)).release();
    expect(clock.slept).toEqual([12_000]);
    // the second used only 100 of its 600: 500 back, so 500 is there at once
    const clock2 = fakeClock();
    const limiter2 = new RateLimiter({ concurrency: 10, tokensPerMinute: 1000, ...clock2 });
    const a = await limiter2.acquire(600);
    a.settle(100);
    a.release();
    (await limiter2.acquire(900)).release();
    expect(clock2.slept).toEqual([]);
  });

  it('concurrency: a third caller waits until one of two releases', async () => {
    const limiter = new RateLimiter({ concurrency: 2 });
    const a = await limiter.acquire(0);
    await limiter.acquire(0);
    let third = false;
    const waiting = limiter.acquire(0).then((ticket) => {
      third = true;
      return ticket;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(third).toBe(false);
    a.release();
    a.release(); // a second release is a no-op
    (await waiting).release();
    expect(third).toBe(true);
  });

  it('callers waiting together are granted one budget at a time (1 rpm: a minute apart)', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ concurrency: 10, requestsPerMinute: 1, ...clock });
    const tickets = await Promise.all([limiter.acquire(0), limiter.acquire(0), limiter.acquire(0)]);
    for (const ticket of tickets) ticket.release();
    // one now, one a minute later, one a minute after that
    expect(clock.slept).toEqual([60_000, 60_000]);
  });
});
