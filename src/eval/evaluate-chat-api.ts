// Evaluation of a chat model through its API, in an environment (issue 30 item 5): each sample is one
// episode of the environment block's tools (calc, python, search; src/environments/block.ts) run at the
// level of messages against /v1/chat/completions (src/environments/chat/chat-api-episode.ts): the user
// message is the problem's prompt, the tools go in the request's `tools`, the server's `tool_calls` are
// run here and answered with `tool` messages, and the last assistant turn's content is graded by the
// task's verifier. For models served anywhere, hosted APIs included; training goes through the
// token-level path. A sample's tool use is kept as in sampleEpisodesAndVerify, so the summary reports it.
import type { ChatApi } from '../backends/openai/chat-completions.ts';
import { UserError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { EnvironmentBlock } from '../environments/block.ts';
import { runChatApiEpisode } from '../environments/chat/chat-api-episode.ts';
import { ToolChatEnvironment } from '../environments/chat/tool-environment.ts';
import { problemSearchTool, searchesPerProblem } from '../environments/problem-search.ts';
import { gradeCompletions, type ProblemOutcome, type SampleAndVerifyOptions } from './evaluate.ts';
import type { EvalEnvironment } from './evaluate-episodes.ts';

/** Problems whose samples are in flight at once. */
const concurrentProblems = 8;

/** The block's in-process tool fields; a remote block has none to run here. */
function localBlock(block: EnvironmentBlock): Exclude<EnvironmentBlock, { name: 'remote' }> {
  if (block.name === 'remote')
    throw new UserError(
      "eval over a chat API runs the environment's tools here: give a tag-tools or chat environment (a remote environment is its own server's)",
    );
  return block;
}

/** One sample: an episode of the problem's tool chat against the API, graded on its last turn. */
async function sampleOnce(
  api: ChatApi,
  problem: Problem,
  environment: EvalEnvironment,
  options: SampleAndVerifyOptions,
  seed: number,
) {
  const block = localBlock(environment.block);
  // Per-problem search (search-facts) when the block lists search without a documents file.
  const search = searchesPerProblem(block) ? problemSearchTool(problem, block.searchResults) : null;
  const chat = new ToolChatEnvironment({
    messages: [{ role: 'user', content: problem.prompt }],
    tools: search ? [...environment.tools, search] : environment.tools,
    grade: () => 0,
    toolTimeoutMs: block.toolTimeoutMs,
    maxOutputChars: block.maxOutputChars,
  });
  try {
    return await runChatApiEpisode(chat, api, {
      limits: block.limits,
      temperature: options.temperature,
      topP: options.topP ?? 1,
      seed,
    });
  } finally {
    search?.close();
  }
}

export async function sampleChatApiAndVerify(
  api: ChatApi,
  problems: readonly Problem[],
  environment: EvalEnvironment,
  options: SampleAndVerifyOptions,
): Promise<ProblemOutcome[]> {
  const outcomes: ProblemOutcome[] = [];
  for (let start = 0; start < problems.length; start += concurrentProblems) {
    const chunk = problems.slice(start, start + concurrentProblems);
    const results = await Promise.all(
      chunk.map((problem, p) =>
        Promise.all(
          Array.from({ length: options.samples }, (_, s) =>
            sampleOnce(
              api,
              problem,
              environment,
              options,
              // Each sample its own seed, 64 apart (turn k of an episode sends seed + k).
              options.seed + 64 * ((start + p) * options.samples + s),
            ),
          ),
        ),
      ),
    );
    chunk.forEach((problem, index) => {
      const own = results[index];
      outcomes.push(
        gradeCompletions(
          problem,
          own.map((episode) => episode.final),
          {
            reasons: own.map((episode) => episode.reason),
            episodes: own.map((episode) => ({
              turns: episode.turns.length,
              toolCalls: episode.turns.reduce((sum, turn) => sum + turn.toolCalls, 0),
              errors: { ...episode.errors },
              end: episode.end,
              ...(episode.tokens ? { tokenDrift: episode.tokens.drifted } : {}),
            })),
          },
        ),
      );
    });
    options.onProgress?.(Math.min(problems.length, start + concurrentProblems), problems.length);
  }
  return outcomes;
}
