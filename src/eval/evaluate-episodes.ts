// Evaluation in an environment (issue 30): each of a problem's samples is one multi-turn episode of the
// environment block a run trains with (src/environments/block.ts) — tool calls and their outputs
// included — graded by the task's verifier on the whole completion, as the run's reward grades it. Each
// sample's tool calls, turns and errors are kept, so the summary says how often and how well the tools
// were used (aggregate.ts `tools`).
import type { PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { type EnvironmentBlock, environmentFor } from '../environments/block.ts';
import { runEpisodes } from '../environments/episode.ts';
import type { Tool } from '../environments/tools/define.ts';
import { promptTokens } from '../tasks/format.ts';
import { gradeCompletions, type ProblemOutcome, type SampleAndVerifyOptions } from './evaluate.ts';

/** The environment evaluation runs its episodes in: the block and its tools (built once, buildTools). */
export interface EvalEnvironment {
  block: EnvironmentBlock;
  tools: readonly Tool[];
}

export async function sampleEpisodesAndVerify(
  backend: PolicyBackend,
  problems: readonly Problem[],
  environment: EvalEnvironment,
  options: SampleAndVerifyOptions,
): Promise<ProblemOutcome[]> {
  const batchSize = options.batchSize ?? Math.max(1, Math.floor(64 / options.samples));
  const tokenizer = backend.tokenizer;
  const outcomes: ProblemOutcome[] = [];
  for (let start = 0; start < problems.length; start += batchSize) {
    const chunk = problems.slice(start, start + batchSize);
    const prompts = chunk.map((problem) => promptTokens(tokenizer, problem));
    const environments = chunk.flatMap((problem, index) =>
      Array.from({ length: options.samples }, () =>
        environmentFor(environment.block, environment.tools, {
          problem,
          tokenizer,
          prompt: prompts[index],
          grade: () => 0,
        }),
      ),
    );
    const episodes = await runEpisodes(backend, environments, {
      limits: environment.block.limits,
      maxCompletionTokens: options.maxTokens,
      temperature: options.temperature,
      topP: options.topP ?? 1,
      seed: options.seed + start,
    });
    chunk.forEach((problem, index) => {
      const own = episodes.slice(index * options.samples, (index + 1) * options.samples);
      // A completion starts after the episode's first observation (a chat template renders the prompt
      // as its own turn, longer than the raw prompt's tokens).
      const completions = own.map((episode) =>
        tokenizer.decode(episode.tokens.slice(episode.turns[0]?.start ?? prompts[index].length)),
      );
      outcomes.push(
        gradeCompletions(problem, completions, {
          episodes: own.map((episode) => ({
            turns: episode.turns.length,
            toolCalls: episode.metrics.tool_calls ?? 0,
            errors: { ...episode.errors },
            end: episode.end,
          })),
        }),
      );
    });
    options.onProgress?.(Math.min(problems.length, start + batchSize), problems.length);
  }
  return outcomes;
}
