// One served policy behind a queue. The embedded backend is not re-entrant, so its calls run one at a
// time; concurrent sampling requests whose options match are merged into ONE `sample` call (the sampler
// decodes every prompt × n row of a call together), which is what makes 200 concurrent requests cheap.
//
// Reproducibility: the sampler draws each step's tokens for all rows of a call from one Rng seeded with
// the call's seed, so a request's tokens depend on which other requests share its call. A request that
// names a `seed` therefore runs alone (same seed ⇒ same tokens, whatever else is in flight); requests
// without a seed are batched and get seeds drawn from the server's own seeded Rng.
//
// Batches are also bounded by memory: the jobs merged into one call add up to at most `maxBatchBytes` of
// estimated model memory (src/server/limits.ts), as one request may at most.
//
// The policy is loaded lazily on first use; `close()` waits for queued work, then closes the policy.
//
// Failures: a call that fails with anything but a UserError (bad input) is a failure inside the model
// (e.g. the wasm heap ran out, a worker died). The model may be unusable after it, so the queue drops
// the policy (closing it), replaces the tfjs-wasm backend if it no longer computes
// (src/policy/runtime.ts), and loads the policy again from its checkpoint for the next job: the request
// that failed gets its error (500), the next one is served. A policy made before the backend was replaced
// (by this queue or another) is reloaded before its next use.
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import type { Rng } from '../../core/rng.ts';
import { resetWasmRuntime, runtimeGeneration, wasmRuntimeHealthy } from '../../policy/runtime.ts';
import { defaultRequestLimits } from '../limits.ts';

interface SampleJob {
  kind: 'sample';
  prompts: number[][];
  options: SampleOptions;
  /** Jobs with equal non-null keys may share one sample call; null runs alone. */
  batchKey: string | null;
  /** Estimated model memory of the job (bytes; src/server/limits.ts). */
  cost: number;
  resolve(value: SampledSequence[][]): void;
  reject(error: unknown): void;
}

interface ForwardJob {
  kind: 'forward';
  sequences: number[][];
  resolve(value: number[][]): void;
  reject(error: unknown): void;
}

type Job = SampleJob | ForwardJob;

/** Counts of work done, for tests and logs. */
export interface QueueStats {
  /** Sampling requests received (each a prompt list). */
  sampleRequests: number;
  /** `policy.sample` calls made (≤ sampleRequests thanks to batching). */
  sampleCalls: number;
  forwardCalls: number;
  /** Times the policy was dropped and reloaded after a failure inside the model. */
  rebuilds: number;
}

export interface SampleQueueOptions {
  /** Most prompt × n rows merged into one sample call (default 512). */
  maxBatchRows?: number;
  /** A batch starts once no request arrived for this long, in ms (default 2)... */
  batchWindowMs?: number;
  /** ...or once it has waited this long (default 20 ms). */
  maxBatchWaitMs?: number;
  /** Most estimated model memory merged into one sample call (default: the per-request limit, 1 GiB). */
  maxBatchBytes?: number;
}

/** Releases what a policy holds (worker threads, tensors); errors are ignored (it may be broken). */
async function releasePolicy(policy: PolicyBackend): Promise<void> {
  try {
    if (policy.close) await policy.close();
    else (policy as { dispose?: () => void }).dispose?.();
  } catch {
    // A policy on a broken or replaced backend may fail to free its tensors; they go with the old heap.
  }
}

export class SampleQueue {
  readonly stats: QueueStats = { sampleRequests: 0, sampleCalls: 0, forwardCalls: 0, rebuilds: 0 };
  private readonly jobs: Job[] = [];
  private loading: Promise<PolicyBackend> | null = null;
  /** runtimeGeneration() when `loading` was started. */
  private loadedGeneration = 0;
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};
  private closed = false;
  private readonly maxBatchRows: number;
  private readonly batchWindowMs: number;
  private readonly maxBatchWaitMs: number;
  private readonly maxBatchBytes: number;

  constructor(
    private readonly load: () => Promise<PolicyBackend>,
    /** Seeds for requests that give none. */
    private readonly seeds: Rng,
    options: SampleQueueOptions = {},
  ) {
    this.maxBatchRows = options.maxBatchRows ?? 512;
    this.batchWindowMs = options.batchWindowMs ?? 2;
    this.maxBatchWaitMs = options.maxBatchWaitMs ?? 20;
    this.maxBatchBytes = options.maxBatchBytes ?? defaultRequestLimits.samplingBytes;
  }

  /** The policy (loaded on first call); for its tokenizer and context length. */
  policy(): Promise<PolicyBackend> {
    if (this.closed) return Promise.reject(new Error('the served model was closed'));
    // Tensors made before the wasm backend was replaced are gone: load again (the old policy goes with
    // the old heap, nothing to free).
    if (this.loading !== null && this.loadedGeneration !== runtimeGeneration()) this.loading = null;
    if (this.loading === null) {
      const loading = this.load();
      this.loading = loading;
      this.loadedGeneration = runtimeGeneration();
      // A failed load is not cached: the next request tries again.
      loading.catch(() => {
        if (this.loading === loading) this.loading = null;
      });
    }
    return this.loading;
  }

  /** Samples `options.n` completions per prompt; `seeded` requests run alone (see the header). */
  sample(
    prompts: number[][],
    options: Omit<SampleOptions, 'seed'> & { seed?: number },
    /** Estimated model memory of the request (src/server/limits.ts); bounds what is merged with it. */
    cost = 0,
  ): Promise<SampledSequence[][]> {
    this.stats.sampleRequests++;
    const seeded = options.seed !== undefined;
    const batchKey = seeded
      ? null
      : JSON.stringify([
          options.n,
          options.temperature,
          options.topP,
          options.maxTokens,
          options.stop ?? [],
          options.topLogprobs ?? 0,
        ]);
    return new Promise((resolve, reject) => {
      this.push({
        kind: 'sample',
        prompts,
        options: { ...options, seed: options.seed ?? 0 },
        batchKey,
        cost,
        resolve,
        reject,
      });
    });
  }

  /** Teacher-forced log-probs (policy.forward), serialised with sampling. */
  forward(sequences: number[][]): Promise<number[][]> {
    return new Promise((resolve, reject) => this.push({ kind: 'forward', sequences, resolve, reject }));
  }

  /** Stops taking work, waits for queued jobs, then closes the policy if one was loaded. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle;
    const loading = this.loading;
    this.loading = null;
    if (loading === null) return;
    const policy = await loading.catch(() => null);
    if (policy === null || this.loadedGeneration !== runtimeGeneration()) return;
    await releasePolicy(policy);
  }

  /**
   * After a failed call: nothing for bad input (UserError); else drop the policy, replace the wasm
   * backend if it no longer computes, and let the next policy() load afresh (see the header).
   */
  private async recover(error: unknown): Promise<void> {
    if (error instanceof UserError) return;
    this.stats.rebuilds++;
    const loading = this.loading;
    const generation = this.loadedGeneration;
    this.loading = null;
    if (!wasmRuntimeHealthy()) {
      try {
        await resetWasmRuntime();
      } catch {
        // The next load reports what is wrong.
      }
    }
    const policy = loading === null ? null : await loading.catch(() => null);
    if (policy !== null && generation === runtimeGeneration()) await releasePolicy(policy);
  }

  private push(job: Job): void {
    if (this.closed) {
      job.reject(new Error('the served model was closed'));
      return;
    }
    this.jobs.push(job);
    if (!this.running) {
      this.running = true;
      this.idle = new Promise((done) => {
        this.markIdle = done;
      });
      void this.drain();
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.jobs.length > 0) {
        await this.gatherArrivals();
        const job = this.jobs.shift()!;
        if (job.kind === 'forward') await this.runForward(job);
        else await this.runSample(this.takeBatch(job));
      }
    } finally {
      this.running = false;
      this.markIdle();
    }
  }

  /**
   * Sampling is CPU work that blocks the event loop, so requests sent meanwhile are still unparsed when a
   * call ends. Wait in short windows while new jobs keep arriving (at most maxBatchWaitMs), so that they
   * join the next batch.
   */
  private async gatherArrivals(): Promise<void> {
    let seen = -1;
    for (
      let waited = 0;
      this.jobs.length !== seen && waited < this.maxBatchWaitMs;
      waited += this.batchWindowMs
    ) {
      seen = this.jobs.length;
      await new Promise((resume) => setTimeout(resume, this.batchWindowMs));
    }
  }

  /** The job plus every queued job with the same batch key, up to maxBatchRows rows and maxBatchBytes. */
  private takeBatch(first: SampleJob): SampleJob[] {
    const batch = [first];
    if (first.batchKey === null) return batch;
    let rows = first.prompts.length * first.options.n;
    let bytes = first.cost;
    for (let index = 0; index < this.jobs.length; ) {
      const job = this.jobs[index];
      const jobRows = job.kind === 'sample' ? job.prompts.length * job.options.n : 0;
      if (
        job.kind === 'sample' &&
        job.batchKey === first.batchKey &&
        rows + jobRows <= this.maxBatchRows &&
        bytes + job.cost <= this.maxBatchBytes
      ) {
        batch.push(job);
        rows += jobRows;
        bytes += job.cost;
        this.jobs.splice(index, 1);
      } else {
        index++;
      }
    }
    return batch;
  }

  private async runSample(batch: SampleJob[]): Promise<void> {
    const options =
      batch[0].batchKey === null
        ? batch[0].options
        : { ...batch[0].options, seed: this.seeds.int(0, 2 ** 31 - 1) };
    if (batch.length === 1) {
      await this.sampleOne(batch[0], options);
      return;
    }
    // One call for the whole batch; a failure (e.g. one bad prompt, or the model failing) falls back to
    // one call per job so that only the faulty request fails.
    try {
      const policy = await this.policy();
      this.stats.sampleCalls++;
      const results = await policy.sample(
        batch.flatMap((job) => job.prompts),
        options,
      );
      let offset = 0;
      for (const job of batch) {
        job.resolve(results.slice(offset, offset + job.prompts.length));
        offset += job.prompts.length;
      }
    } catch (error) {
      await this.recover(error);
      for (const job of batch) await this.sampleOne(job, options);
    }
  }

  private async sampleOne(job: SampleJob, options: SampleOptions): Promise<void> {
    try {
      const policy = await this.policy();
      this.stats.sampleCalls++;
      job.resolve(await policy.sample(job.prompts, options));
    } catch (error) {
      await this.recover(error);
      job.reject(error);
    }
  }

  private async runForward(job: ForwardJob): Promise<void> {
    try {
      const policy = await this.policy();
      this.stats.forwardCalls++;
      job.resolve(await policy.forward(job.sequences));
    } catch (error) {
      await this.recover(error);
      job.reject(error);
    }
  }
}
