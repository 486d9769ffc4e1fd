// Per-prompt sampling seeds: prompt p of a sample call draws its tokens from its own Rng, seeded with the
// p-th nextUint32 of Rng(options.seed). The worker-parallel backend (parallel-backend.ts) does this so
// that which worker samples a prompt does not decide its stream; the Tinker client
// (src/backends/tinker/client/backend.ts) sends these seeds with its one-prompt asample requests, and a
// server that samples one prompt from Rng(seed) then draws what a parallel worker draws. One function,
// so that the three cannot drift apart.
//
// PromptSeededPolicy: the in-process EmbeddedBackend (workers 1, one batched sample call) drawing with
// these per-prompt seeds instead of one Rng shared by all rows, so that an in-process run can be
// compared draw for draw with a run over Tinker (`curricula bench remote --only tinker`). Everything
// else is the embedded backend's own call.
import type {
  Datum,
  ForwardBackwardResult,
  LossKind,
  OptimOptions,
  OptimStepResult,
  PolicyBackend,
  SampledSequence,
  SampleOptions,
  Tokenizer,
} from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import type { EmbeddedBackend } from './embedded-backend.ts';

/** The seeds of `count` prompts sampled at `seed`: the first `count` nextUint32 draws of Rng(seed). */
export function promptSeedsOf(count: number, seed: number): number[] {
  const seeds = new Rng(seed);
  return Array.from({ length: count }, () => seeds.nextUint32());
}

/**
 * A backend that can sample with given per-prompt seeds (EmbeddedBackend, ParallelEmbeddedBackend): what
 * `curricula serve --tinker` uses to sample several one-prompt requests, each with its own seed, in one
 * batched call.
 */
export interface PromptSeedSampling {
  sampleWithPromptSeeds(
    prompts: number[][],
    options: SampleOptions,
    promptSeeds: readonly number[],
  ): Promise<SampledSequence[][]>;
}

export function hasPromptSeedSampling(policy: PolicyBackend): policy is PolicyBackend & PromptSeedSampling {
  return typeof (policy as Partial<PromptSeedSampling>).sampleWithPromptSeeds === 'function';
}

export class PromptSeededPolicy implements PolicyBackend {
  constructor(readonly embedded: EmbeddedBackend) {}

  get tokenizer(): Tokenizer {
    return this.embedded.tokenizer;
  }

  get contextLength(): number {
    return this.embedded.contextLength;
  }

  sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
    return this.embedded.sampleWithPromptSeeds(prompts, options, promptSeedsOf(prompts.length, options.seed));
  }

  forward(sequences: number[][]): Promise<number[][]> {
    return this.embedded.forward(sequences);
  }

  forwardBackward(data: Datum[], loss: LossKind): Promise<ForwardBackwardResult> {
    return this.embedded.forwardBackward(data, loss);
  }

  optimStep(options: OptimOptions): Promise<OptimStepResult> {
    return this.embedded.optimStep(options);
  }

  save(dir: string): Promise<void> {
    return this.embedded.save(dir);
  }

  async close(): Promise<void> {
    this.embedded.dispose();
  }
}
