// Per-prompt seeds (prompt-seeds.ts) on the real demo-cold checkpoint: the worker-parallel backend given
// seeds samples prompt p exactly as a lone in-process call at seed p does (what `curricula serve
// --tinker --workers 2` relies on), and the in-process PromptSeededPolicy (workers 1, one batch) samples
// what the parallel backend samples at the same seed. The seeds are checked against Rng's own draws.
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { ParallelEmbeddedBackend } from './parallel-backend.ts';
import { PromptSeededPolicy, promptSeedsOf } from './prompt-seeds.ts';

const checkpoint = resolve(import.meta.dirname, '../../examples/checkpoints/demo-cold');
const prompts = [
  [1, 40, 41, 42],
  [1, 43, 44],
  [1, 50, 51, 52, 53],
];
const options = { n: 3, temperature: 1, topP: 1, maxTokens: 10, seed: 21 };

let parallel: ParallelEmbeddedBackend;
let embedded: EmbeddedBackend;

beforeAll(async () => {
  parallel = await ParallelEmbeddedBackend.load(checkpoint, { workers: 2 });
  embedded = await EmbeddedBackend.load(checkpoint);
}, 60_000);

afterAll(async () => {
  await parallel?.close();
  embedded?.dispose();
});

const tokensOf = (groups: { tokens: number[] }[][]) => groups.map((group) => group.map((s) => s.tokens));

describe('per-prompt seeds', () => {
  it('promptSeedsOf is the first draws of Rng(seed)', () => {
    const rng = new Rng(21);
    expect(promptSeedsOf(3, 21)).toEqual([rng.nextUint32(), rng.nextUint32(), rng.nextUint32()]);
  });

  it('the parallel backend samples prompt p from the seed it is given, as a lone call at that seed', async () => {
    const seeds = [5, 4_000_000_000, 77];
    const batched = await parallel.sampleWithPromptSeeds(prompts, options, seeds);
    for (const [p, prompt] of prompts.entries()) {
      const alone = await embedded.sample([prompt], { ...options, seed: seeds[p] });
      expect([p, tokensOf(alone)[0]]).toEqual([p, tokensOf(batched)[p]]);
    }
  });

  it('PromptSeededPolicy (workers 1) samples what the parallel backend samples at the same seed', async () => {
    const inProcess = await new PromptSeededPolicy(embedded).sample(prompts, options);
    expect(tokensOf(inProcess)).toEqual(tokensOf(await parallel.sample(prompts, options)));
    // …and not what a plain workers-1 call draws (one Rng shared by every row).
    expect(tokensOf(await embedded.sample(prompts, options))).not.toEqual(tokensOf(inProcess));
  });
});
