// One generator round of self-play (issue 16 item 4), run by the RL loop every `selfPlay.every` steps:
//   propose (the policy continues a few of the task's own prompts, one statement per line) → screen
//   (screen.ts: grammar, length, duplicate, held-out contamination) → measure (the student attempts each
//   screened problem `admit.samples` times) → admit in the band → record (pool.ts) → generator reward.
// Deviations (stated in docs/self-play.md too): the generator is the student's current weights (default)
// or a frozen checkpoint (`generator: {checkpoint}`, e.g. a writer cold start); the student is trained on
// its statements only with selfPlay.trainGenerator (generator-groups.ts), otherwise the reward is only
// logged (selfplay/generator_reward). SeRL ¶88 prompts with instructions and few-shot examples; ours is
// few-shot only (a tiny char-level model has no instruction following).
import type { PolicyBackend, SampledSequence } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import { sampleAndVerify } from '../eval/evaluate.ts';
import { promptTokens } from '../tasks/format.ts';
import type { Task } from '../tasks/task.ts';
import { bandVerdict, generatorReward } from './admission.ts';
import type { SelfPlayConfig } from './config.ts';
import type { GeneratedPool } from './pool.ts';
import { screenProposal } from './screen.ts';

export interface SelfPlayTask {
  task: Task;
  /** The task's fixed training problems, whose prompts serve as few-shot examples. */
  examples: Problem[];
  /** Canonical keys of the run's held-out problems of this task. */
  heldOut: ReadonlySet<string>;
}

export interface SelfPlay {
  config: SelfPlayConfig;
  pool: GeneratedPool;
  tasks: SelfPlayTask[];
  heldOutFraction: number;
  /** A frozen generator (selfPlay.generator: {checkpoint}); null: the student writes the problems. */
  generator: PolicyBackend | null;
}

/**
 * The generator prompt: `examples` of the task's prompts, each ending with a newline; the slot follows.
 * The examples share one difficulty, that of a pool problem drawn uniformly (all of the pool when that
 * level has too few), so the prompt asks for a problem of that level; the write-problems task teaches
 * exactly this format. Mixed-level examples confused the writer cold start: 9 of 40 of its statements
 * parsed at T = 1, against 40 of 40 for same-level examples of 1 to 6 digits.
 */
export function generatorPrompt(entry: SelfPlayTask, count: number, rng: Rng): string {
  const shots = Math.min(count, entry.examples.length);
  if (shots === 0) return '';
  const level = entry.examples[rng.int(0, entry.examples.length - 1)].difficulty;
  const same = entry.examples.filter((problem) => problem.difficulty === level);
  const from = same.length >= shots ? same : entry.examples;
  const chosen = rng.shuffle([...from.keys()]).slice(0, shots);
  return chosen.map((index) => from[index].prompt).join('');
}

/** The generator's statements for one prompt, with their rewards (for the generator's RL update). */
export interface GeneratorGroup {
  /** The generator prompt's text and its tokens ([BOS] + prompt). */
  prompt: string;
  context: number[];
  sequences: SampledSequence[];
  rewards: number[];
}

export interface RoundResult {
  metrics: Record<string, number>;
  /** One group per generator prompt (`perPrompt` statements each). */
  groups: GeneratorGroup[];
}

/**
 * One round: `proposals` generator prompts, `perPrompt` statements each (1 for a frozen generator;
 * rollout.groupSize when the generator is trained, so its statements form GRPO groups), screened,
 * measured and recorded into the pool; returns the selfplay/* metrics and the generator's groups.
 */
export async function selfPlayRound(
  selfPlay: SelfPlay,
  policy: PolicyBackend,
  rng: Rng,
  step: number,
  sampling: { temperature: number; maxTokens: number; perPrompt?: number },
  /** Who writes the problems (default: the frozen generator when there is one, else the student). */
  generator: Pick<PolicyBackend, 'sample' | 'tokenizer' | 'contextLength'> = selfPlay.generator ?? policy,
): Promise<RoundResult> {
  const { config, pool } = selfPlay;
  const perPrompt = sampling.perPrompt ?? 1;
  const entries = selfPlay.tasks;
  const prompts = Array.from({ length: config.proposals }, (_, index) => {
    const entry = entries[index % entries.length];
    return { entry, text: generatorPrompt(entry, config.examples, rng) };
  });
  const seed = rng.nextUint32();
  const tokens = prompts.map(({ entry, text }) =>
    promptTokens(generator.tokenizer, { ...entry.examples[0], prompt: text, id: `selfplay-${step}` }),
  );
  const room = generator.contextLength - Math.max(...tokens.map((prompt) => prompt.length));
  const empty: SampledSequence = {
    text: '',
    tokens: [],
    logprobs: [],
    samplingLogprobs: [],
    stopReason: 'length',
  };
  const written: SampledSequence[][] =
    room > 0
      ? await generator.sample(tokens, {
          n: perPrompt,
          temperature: sampling.temperature,
          topP: 1,
          maxTokens: Math.min(64, room),
          seed,
        })
      : tokens.map(() => Array.from({ length: perPrompt }, () => empty));
  const seen = pool.keys();
  // Proposals in order (prompt-major); each one's reward lands at its own index.
  const proposals = prompts.flatMap(({ entry }, p) =>
    written[p].map((sequence) => ({ entry, text: sequence.text })),
  );
  const rewards = proposals.map(() => 0);
  const screened: { problem: Problem; key: string; index: number }[] = [];
  proposals.forEach(({ entry, text }, index) => {
    const result = screenProposal(text ?? '', {
      task: entry.task,
      heldOut: entry.heldOut,
      seen,
      heldOutFraction: selfPlay.heldOutFraction,
      maxTokens: policy.contextLength,
    });
    if (!result.ok) {
      pool.record({ rejected: result.reason });
      rewards[index] = generatorReward(config.reward, null, config.admit);
      return;
    }
    seen.add(result.key);
    screened.push({ problem: result.problem, key: result.key, index });
  });
  const outcomes =
    screened.length > 0
      ? await sampleAndVerify(
          policy,
          screened.map((item) => item.problem),
          {
            samples: config.admit.samples,
            temperature: sampling.temperature,
            maxTokens: sampling.maxTokens,
            seed: rng.nextUint32(),
          },
        )
      : [];
  outcomes.forEach((outcome, index) => {
    const item = screened[index];
    const passes = outcome.correct.filter(Boolean).length;
    const passRate = passes / config.admit.samples;
    const verdict = bandVerdict(passes, config.admit.samples, config.admit);
    rewards[item.index] = generatorReward(config.reward, passRate, config.admit);
    if (verdict === 'admitted') {
      pool.record({ admitted: { problem: item.problem, key: item.key, passRate, step } });
    } else {
      pool.record({ rejected: verdict });
    }
  });
  const meanReward = rewards.length > 0 ? rewards.reduce((sum, value) => sum + value, 0) / rewards.length : 0;
  const groups = prompts.map(({ text }, p) => ({
    prompt: text,
    context: tokens[p],
    sequences: written[p],
    rewards: rewards.slice(p * perPrompt, (p + 1) * perPrompt),
  }));
  return {
    metrics: {
      ...pool.metrics(),
      'selfplay/generator_reward': meanReward,
      'selfplay/round_screened': screened.length,
    },
    groups,
  };
}
