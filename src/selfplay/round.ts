// One generator round of self-play (issue 16 item 4), run by the RL loop every `selfPlay.every` steps:
//   propose (the policy continues a few of the task's own prompts, one statement per line) → screen
//   (screen.ts: grammar, length, duplicate, held-out contamination) → measure (the student attempts each
//   screened problem `admit.samples` times) → admit in the band → record (pool.ts) → generator reward.
// Deviations (stated in docs/self-play.md too): the generator is the student's current weights and is NOT
// trained on its proposals yet (the reward is computed and logged as selfplay/generator_reward, not used
// for an update); `generator: {checkpoint}` is refused at setup. SeRL ¶88 prompts with instructions and
// few-shot examples; ours is few-shot only (a tiny char-level model has no instruction following).
import type { PolicyBackend } from '../core/policy.ts';
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
}

/** The generator prompt: `examples` of the task's prompts, each ending with a newline; the slot follows. */
export function generatorPrompt(entry: SelfPlayTask, count: number, rng: Rng): string {
  const shots = Math.min(count, entry.examples.length);
  const chosen = rng.shuffle([...entry.examples.keys()]).slice(0, shots);
  return chosen.map((index) => entry.examples[index].prompt).join('');
}

/** One round: proposals, admissions and rejections into the pool; returns the round's selfplay/* metrics. */
export async function selfPlayRound(
  selfPlay: SelfPlay,
  policy: PolicyBackend,
  rng: Rng,
  step: number,
  sampling: { temperature: number; maxTokens: number },
  /** Who writes the problems (default: the student policy itself; a frozen checkpoint later). */
  generator: Pick<PolicyBackend, 'sample' | 'tokenizer' | 'contextLength'> = policy,
): Promise<Record<string, number>> {
  const { config, pool } = selfPlay;
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
  const written: { text: string }[][] =
    room > 0
      ? await generator.sample(tokens, {
          n: 1,
          temperature: sampling.temperature,
          topP: 1,
          maxTokens: Math.min(64, room),
          seed,
        })
      : tokens.map(() => [{ text: '' }]);
  const seen = pool.keys();
  const screened: { problem: Problem; key: string }[] = [];
  const rewards: number[] = [];
  prompts.forEach(({ entry }, index) => {
    const result = screenProposal(written[index][0]?.text ?? '', {
      task: entry.task,
      heldOut: entry.heldOut,
      seen,
      heldOutFraction: selfPlay.heldOutFraction,
      maxTokens: policy.contextLength,
    });
    if (!result.ok) {
      pool.record({ rejected: result.reason });
      rewards.push(generatorReward(config.reward, null, config.admit));
      return;
    }
    seen.add(result.key);
    screened.push(result);
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
    const passes = outcome.correct.filter(Boolean).length;
    const passRate = passes / config.admit.samples;
    const verdict = bandVerdict(passes, config.admit.samples, config.admit);
    rewards.push(generatorReward(config.reward, passRate, config.admit));
    if (verdict === 'admitted') {
      pool.record({
        admitted: { problem: screened[index].problem, key: screened[index].key, passRate, step },
      });
    } else {
      pool.record({ rejected: verdict });
    }
  });
  const meanReward = rewards.length > 0 ? rewards.reduce((sum, value) => sum + value, 0) / rewards.length : 0;
  return {
    ...pool.metrics(),
    'selfplay/generator_reward': meanReward,
    'selfplay/round_screened': screened.length,
  };
}
