// Sampling for `curricula serve --tinker`: the asample requests of one sampler run one batch at a time,
// and requests that arrive together (an RL client sends one asample per prompt, all at once) are sampled
// in ONE policy call when their options agree (n, temperature, top_p, max_tokens, stop) — one KV-cached
// batch instead of one per prompt, which is most of the cost of an RL step over HTTP
// (`curricula bench remote --only tinker`).
// Seeds: each request keeps its own seed — prompt p of a batch draws from Rng(seed of request p)
// (PromptSeedSampling, src/policy/prompt-seeds.ts), which is also what a lone request draws
// (one prompt from Rng(seed)), so batching changes no draw; only float32 rounding of the logits can
// differ with the batch's shape. A policy without PromptSeedSampling samples each request alone.
// A batched call that fails (e.g. one prompt too long) is retried request by request, so that each
// request gets its own answer or error. Requests asking for prompt_logprobs, or without max_tokens (its
// default depends on the prompt's length), are sampled alone.
// Batching window: when the sampler is free (idle, or its previous batch done), the batch stays open while
// requests keep arriving and closes `windowMs` (5 ms) after the latest one.
// A merged call holds at most the per-request bounds (src/server/limits.ts: rows and estimated model
// memory): 20,000 concurrent one-prompt requests become several calls, not one that exhausts the heap.
import type { SampleResponse } from '../../backends/tinker/wire/index.ts';
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import { hasPromptSeedSampling } from '../../policy/prompt-seeds.ts';
import { defaultRequestLimits, type RequestLimits } from '../limits.ts';
import { errorCategory, errorMessage } from './deps.ts';
import type { FutureStore } from './futures.ts';
import type { Sampler } from './models.ts';

export type StopSpec = string | string[] | number[] | null | undefined;

export interface SampleJob {
  requestId: string;
  prompt: number[];
  options: Omit<SampleOptions, 'stop' | 'maxTokens'> & { maxTokens?: number; stop: StopSpec };
  promptLogprobs: boolean;
  /** prompt × num_samples rows and estimated model memory (bytes), for the merge bound. */
  rows?: number;
  bytes?: number;
}

/** Counts for tests and the bench: policy sample calls and the requests they served. */
export interface SampleBatchStats {
  sampleCalls: number;
  requests: number;
}

function stopStrings(policy: PolicyBackend, stop: StopSpec): string[] | undefined {
  if (stop == null) return undefined;
  if (typeof stop === 'string') return [stop];
  const strings = stop.map((item) => (typeof item === 'number' ? policy.tokenizer.decode([item]) : item));
  return strings.filter((text) => text !== '');
}

function responseOf(sequences: SampledSequence[]): SampleResponse {
  return {
    sequences: sequences.map((sequence) => ({
      stopReason: sequence.stopReason === 'length' ? 'length' : 'stop',
      tokens: sequence.tokens,
      logprobs: sequence.logprobs,
    })),
  };
}

/** Samples prompts, prompt p from Rng(seeds[p]) (a lone prompt from Rng(seed) on any policy). */
function sampleSeeded(
  policy: PolicyBackend,
  prompts: number[][],
  options: SampleOptions,
  seeds: number[],
): Promise<SampledSequence[][]> {
  if (hasPromptSeedSampling(policy)) return policy.sampleWithPromptSeeds(prompts, options, seeds);
  return policy.sample(prompts, { ...options, seed: seeds[0] });
}

export class SampleBatcher {
  readonly stats: SampleBatchStats = { sampleCalls: 0, requests: 0 };
  private readonly pending = new Map<Sampler, SampleJob[]>();

  /**
   * `windowMs`: how long a batch stays open after its latest request (default 5 ms: an RL client's
   * concurrent requests arrive over several connections and event-loop turns; a lone request waits 5 ms).
   */
  constructor(
    private readonly futures: FutureStore,
    private readonly windowMs = 5,
    private readonly limits: Pick<RequestLimits, 'maxRows' | 'samplingBytes'> = defaultRequestLimits,
  ) {}

  /** Queues a request on its sampler; its future settles when its batch has run. */
  enqueue(sampler: Sampler, job: SampleJob): void {
    const queued = this.pending.get(sampler);
    if (queued) {
      queued.push(job);
      return;
    }
    this.pending.set(sampler, [job]);
    sampler.chain = sampler.chain.then(async () => {
      // Wait while requests keep arriving: `windowMs` without a new request closes the batch.
      let seen: number;
      do {
        seen = this.pending.get(sampler)!.length;
        await new Promise<void>((resolve) => setTimeout(resolve, this.windowMs));
      } while (this.pending.get(sampler)!.length > seen);
      const jobs = this.pending.get(sampler) ?? [];
      this.pending.delete(sampler);
      let policy: PolicyBackend;
      try {
        policy = await sampler.policy;
      } catch (error) {
        // The sampler's policy failed to load: every request of the batch fails with that.
        for (const job of jobs) this.fail(job, error);
        return;
      }
      await this.run(policy, jobs);
    });
  }

  private async run(policy: PolicyBackend, jobs: SampleJob[]): Promise<void> {
    const groups = new Map<string, SampleJob[]>();
    const alone: SampleJob[] = [];
    for (const job of jobs) {
      const { n, temperature, topP, maxTokens, stop } = job.options;
      if (job.promptLogprobs || maxTokens === undefined || !hasPromptSeedSampling(policy)) {
        alone.push(job);
        continue;
      }
      const key = JSON.stringify([n, temperature, topP, maxTokens, stopStrings(policy, stop) ?? null]);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(job);
    }
    for (const group of this.bounded([...groups.values()])) {
      if (group.length === 1) {
        alone.push(group[0]);
        continue;
      }
      const { options } = group[0];
      try {
        this.stats.sampleCalls++;
        const results = await sampleSeeded(
          policy,
          group.map((job) => job.prompt),
          { ...options, maxTokens: options.maxTokens!, stop: stopStrings(policy, options.stop) },
          group.map((job) => job.options.seed),
        );
        this.stats.requests += group.length;
        for (const [i, job] of group.entries()) {
          this.futures.resolve(job.requestId, { kind: 'sample', response: responseOf(results[i]) });
        }
      } catch {
        alone.push(...group);
      }
    }
    for (const job of alone) await this.runAlone(policy, job);
  }

  /** Each group cut into consecutive parts within the merge bounds (rows, estimated bytes). */
  private bounded(groups: SampleJob[][]): SampleJob[][] {
    const parts: SampleJob[][] = [];
    for (const group of groups) {
      let part: SampleJob[] = [];
      let rows = 0;
      let bytes = 0;
      for (const job of group) {
        const jobRows = job.rows ?? job.options.n;
        const jobBytes = job.bytes ?? 0;
        if (
          part.length > 0 &&
          (rows + jobRows > this.limits.maxRows || bytes + jobBytes > this.limits.samplingBytes)
        ) {
          parts.push(part);
          part = [];
          rows = 0;
          bytes = 0;
        }
        part.push(job);
        rows += jobRows;
        bytes += jobBytes;
      }
      if (part.length > 0) parts.push(part);
    }
    return parts;
  }

  private async runAlone(policy: PolicyBackend, job: SampleJob): Promise<void> {
    const { prompt, options } = job;
    try {
      const maxTokens = options.maxTokens ?? Math.max(0, policy.contextLength - prompt.length);
      this.stats.sampleCalls++;
      const [sequences] = await sampleSeeded(
        policy,
        [prompt],
        { ...options, maxTokens, stop: stopStrings(policy, options.stop) },
        [options.seed],
      );
      this.stats.requests++;
      const response = responseOf(sequences);
      if (job.promptLogprobs) {
        const scored = prompt.length >= 2 ? (await policy.forward([prompt]))[0] : [];
        response.promptLogprobs = [null, ...scored];
      }
      this.futures.resolve(job.requestId, { kind: 'sample', response });
    } catch (error) {
      this.fail(job, error);
    }
  }

  private fail(job: SampleJob, error: unknown): void {
    const message = error instanceof UserError ? error.message : `sampling failed: ${errorMessage(error)}`;
    this.futures.fail(job.requestId, message, errorCategory(error));
  }
}
