// Evaluation: sample n completions per held-out problem, grade them with the task verifiers, and aggregate
// pass@1, unbiased pass@k and maj@k per task and difficulty (aggregate.ts).
import type { PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { StepErrorKind } from '../environments/contract.ts';
import type { EpisodeEnd } from '../environments/episode-record.ts';
import { statedConfidence } from '../rewards/calibration.ts';
import { promptTokens } from '../tasks/format.ts';
import { tasks } from '../tasks/index.ts';

export interface SampleAndVerifyOptions {
  /** Completions per problem (n). */
  samples: number;
  /** 0 = greedy. */
  temperature: number;
  topP?: number;
  seed: number;
  /** Prompts per sampling call (each gets `samples` completions). */
  batchSize?: number;
  /** Cap on completion length (default: whatever fits the context). */
  maxTokens?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ProblemOutcome {
  problem: Problem;
  completions: string[];
  correct: boolean[];
  /** Extracted final answers (null when none), used by maj@k. */
  answers: (string | null)[];
  reasons: (string | undefined)[];
  /** Confidence stated in a completion's last <confidence>…</confidence> (RLCR), or null. */
  confidences: (number | null)[];
  /** In an environment (evaluate-episodes.ts): each sample's episode — turns, tool calls, errors, end. */
  episodes?: EpisodeOutcome[];
}

/** What evaluation keeps of one sample's episode. */
export interface EpisodeOutcome {
  turns: number;
  toolCalls: number;
  errors: Record<StepErrorKind, number>;
  end: EpisodeEnd;
  /**
   * Over a chat API whose server returned token ids (evaluate-chat-api.ts): the turns whose prompt did
   * not extend the previous prompt and its sampled tokens (the server re-rendered them); absent otherwise.
   */
  tokenDrift?: number;
}

/**
 * One problem's completions graded by its task's verifier: verdicts, extracted answers, reasons (a
 * sample's own reason, e.g. why its episode ended, first), stated confidences, and its episodes if any.
 */
export function gradeCompletions(
  problem: Problem,
  completions: string[],
  samples: { episodes?: EpisodeOutcome[]; reasons?: (string | undefined)[] } = {},
): ProblemOutcome {
  const task = tasks.get(problem.task);
  const verdicts = completions.map((completion) => task.verify(problem, completion));
  return {
    problem,
    completions,
    correct: verdicts.map((verdict) => verdict.correct),
    answers: verdicts.map((verdict) => verdict.extracted),
    reasons: verdicts.map((verdict, i) => samples.reasons?.[i] ?? verdict.reason),
    confidences: completions.map((completion) => statedConfidence(completion)),
    ...(samples.episodes ? { episodes: samples.episodes } : {}),
  };
}

export async function sampleAndVerify(
  backend: PolicyBackend,
  problems: readonly Problem[],
  options: SampleAndVerifyOptions,
): Promise<ProblemOutcome[]> {
  const batchSize = options.batchSize ?? Math.max(1, Math.floor(64 / options.samples));
  const outcomes: ProblemOutcome[] = [];
  for (let start = 0; start < problems.length; start += batchSize) {
    const chunk = problems.slice(start, start + batchSize);
    const prompts = chunk.map((problem) => promptTokens(backend.tokenizer, problem));
    const longestPrompt = Math.max(...prompts.map((prompt) => prompt.length));
    const room = backend.contextLength - longestPrompt;
    const sampled = await backend.sample(prompts, {
      n: options.samples,
      temperature: options.temperature,
      topP: options.topP ?? 1,
      maxTokens: Math.max(1, Math.min(options.maxTokens ?? room, room)),
      seed: options.seed + start,
    });
    chunk.forEach((problem, index) => {
      outcomes.push(
        gradeCompletions(
          problem,
          sampled[index].map((sequence) => sequence.text),
        ),
      );
    });
    options.onProgress?.(Math.min(problems.length, start + batchSize), problems.length);
  }
  return outcomes;
}
