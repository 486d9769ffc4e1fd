// Per-model request order. A Tinker training client numbers its requests (`seq_id`, from 1: every
// forward_backward chunk, forward, optim_step, save/load) and may send them concurrently — chunks of one
// forward_backward go out in parallel, first chunk last, and optim_step follows without waiting
// (tinker-wire-sdk-0.25.md §2, §4). The server must run them strictly in seq_id order:
// - a request whose predecessors have not arrived waits, at most `waitMs`; then it fails (its future
//   gets an error) rather than running out of order;
// - a seq_id already received or already run is refused (400), never silently run twice — retries of the
//   same request are caught earlier by the idempotency key (futures.ts);
// - requests without a seq_id (legacy JSON clients) run in arrival order.
// The first seq_id seen sets the start when it is 0 or 1; a larger first seq_id waits for 1.
// Runs are chained, so one model never runs two operations at once.
// Resume mode (a model restored after a restart, durability.ts): the order continues after the last
// seq_id the durable state includes. Requests the old server received after it are gone; when a request
// has waited `graceMs` for a predecessor that has not come (the stock SDK sends chunks in parallel, so a
// short wait tells "late" from "lost"), the sequencer reports the gap once (`onGap(from, to)`) and
// continues from the earliest waiting seq_id instead of failing it.
import { badRequest } from './http-errors.ts';

interface Waiting {
  run: () => Promise<void>;
  timeout: (message: string) => void;
  timer: NodeJS.Timeout;
}

export class Sequencer {
  private next: number | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private chain: Promise<void>;
  private resume:
    | { graceMs: number; onGap: (from: number, to: number) => void; timer?: NodeJS.Timeout }
    | undefined;

  constructor(
    private readonly waitMs: number,
    start: Promise<unknown> = Promise.resolve(),
  ) {
    this.chain = start.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Continues after `lastSeqId` (restored model); a gap after it is reported once through onGap. */
  resumeAfter(lastSeqId: number, graceMs: number, onGap: (from: number, to: number) => void): void {
    this.next = lastSeqId + 1;
    this.resume = { graceMs, onGap };
  }

  /** Throws 400 when seqId is stale or a duplicate (submit would refuse it). */
  check(seqId: number | undefined): void {
    if (seqId === undefined) return;
    if (!Number.isInteger(seqId)) throw badRequest(`seq_id must be an integer, got ${seqId}`);
    const next = this.next ?? Math.min(seqId, 1);
    if (seqId < next) {
      throw badRequest(`seq_id ${seqId} was already received (next expected: ${next}); not run again`);
    }
    if (this.waiting.has(seqId))
      throw badRequest(`seq_id ${seqId} was already received and is waiting its turn`);
  }

  /** Schedules `run` at its place in the order; throws 400 for a stale or duplicate seq_id. */
  submit(seqId: number | undefined, run: () => Promise<void>, timeout: (message: string) => void): void {
    this.check(seqId);
    if (seqId === undefined) {
      this.enqueue(run);
      return;
    }
    if (this.next === undefined) this.next = Math.min(seqId, 1);
    const timer = setTimeout(() => {
      this.waiting.delete(seqId);
      timeout(`seq_id ${seqId} waited ${this.waitMs} ms for seq_id ${this.next}, which never arrived`);
    }, this.waitMs);
    timer.unref();
    this.waiting.set(seqId, { run, timeout, timer });
    this.drain();
    this.watchGap();
  }

  /** Marks a seq_id as used without running anything (a request refused after its seq_id was read). */
  skip(seqId: number | undefined): void {
    if (seqId === undefined) return;
    try {
      this.submit(
        seqId,
        async () => {},
        () => {},
      );
    } catch {
      // already used: nothing to skip
    }
  }

  /** Stops waiting requests' timers (server shutdown). */
  close(): void {
    for (const entry of this.waiting.values()) clearTimeout(entry.timer);
    if (this.resume?.timer) clearTimeout(this.resume.timer);
  }

  /** Resume mode: after graceMs without the expected seq_id, jump to the earliest waiting one. */
  private watchGap(): void {
    const resume = this.resume;
    if (resume === undefined || resume.timer !== undefined || this.waiting.size === 0) return;
    resume.timer = setTimeout(() => {
      resume.timer = undefined;
      if (this.resume !== resume || this.next === undefined || this.waiting.has(this.next)) return;
      const first = Math.min(...this.waiting.keys());
      this.resume = undefined;
      resume.onGap(this.next, first - 1);
      this.next = first;
      this.drain();
    }, resume.graceMs);
    resume.timer.unref();
  }

  private drain(): void {
    while (this.next !== undefined && this.waiting.has(this.next)) {
      const entry = this.waiting.get(this.next)!;
      this.waiting.delete(this.next);
      clearTimeout(entry.timer);
      this.next += 1;
      this.endResume();
      this.enqueue(entry.run);
    }
  }

  /** The first request after a restart arrived in order: nothing was lost. */
  private endResume(): void {
    if (this.resume?.timer) clearTimeout(this.resume.timer);
    this.resume = undefined;
  }

  private enqueue(run: () => Promise<void>): void {
    this.chain = this.chain.then(run).catch(() => undefined);
  }
}
