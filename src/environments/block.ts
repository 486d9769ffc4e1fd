// The environment block: the `rollout.environment` block of the train config (the run component
// `environment`, src/training/components/environment) and what `curricula eval` runs episodes in. It names
// the environment every sample runs in, its tools and limits; environmentFor builds one episode's
// environment from it. Absent = single-turn sampling. Three variants, by `name`: 'tag-tools' (tools run in
// process), 'chat' (the same tools called in the policy's chat template, chat/chat-block.ts) and 'remote'
// (an environment served over HTTP by an ORS server, remote/remote-block.ts).
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { Tokenizer } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { chatBlockSchema, chatEnvironmentFor } from './chat/chat-block.ts';
import type { Environment } from './contract.ts';
import { creditOptionsShape } from './credit.ts';
import { episodeLimitsSchema } from './limits.ts';
import { searchesPerProblem, withProblemSearch } from './problem-search.ts';
import { remoteBlockSchema, remoteEnvironmentFor } from './remote/remote-block.ts';
import { TagToolEnvironment } from './tag-tools.ts';
import { calculator } from './tools/calculator.ts';
import type { Tool } from './tools/define.ts';
import { localToolsShape } from './tools/local-tools.ts';
import { pythonTool } from './tools/python.ts';
import { loadDocuments, searchTool } from './tools/search.ts';

/** The `tag-tools` variant: tools run in this process. */
export const tagToolsBlockSchema = z.strictObject({
  /** 'tag-tools': `<name>input</name>` tool calls for the character model (src/environments/tag-tools.ts). */
  name: z.literal('tag-tools'),
  // tools (calc, search, python), searchResults, toolTimeoutMs (tools/local-tools.ts).
  ...localToolsShape,
  /**
   * With the search tool: a JSONL file of {id, title, text} documents (src/environments/tools/search.ts).
   * Absent: each episode searches its problem's metadata.documents (problem-search.ts, task search-facts).
   */
  documents: z.string().min(1).optional(),
  /** Longer tool outputs are cut to this many characters. */
  maxOutputChars: z.number().int().min(1).default(64),
  /** Turns, tokens, timeouts and the parse-error policy of each episode (src/environments/limits.ts). */
  limits: episodeLimitsSchema.default(episodeLimitsSchema.parse({})),
  // credit ('episode' | 'turn'), callFormatReward, callFormatCap: how the sampled tokens are credited (credit.ts).
  ...creditOptionsShape,
});

/** The block: absent, `name: tag-tools`, `name: chat` or `name: remote`. */
export const environmentBlockSchema = z
  .union([tagToolsBlockSchema, chatBlockSchema, remoteBlockSchema])
  .optional();

/** A block of either variant, defaults filled. */
export type EnvironmentBlock = NonNullable<z.output<typeof environmentBlockSchema>>;

/** The block's tools, built once per run (the search index from its documents), and how to free them. */
export function buildTools(block: EnvironmentBlock): { tools: Tool[]; close(): void } {
  const closers: (() => void)[] = [];
  // A remote environment's tools are the server's, listed per session (remote/remote-environment.ts).
  if (block.name === 'remote') return { tools: [], close: () => undefined };
  // Without a documents file, tag-tools' episodes search their own problem's documents (environmentFor).
  const names = searchesPerProblem(block) ? block.tools.filter((name) => name !== 'search') : block.tools;
  const tools = names.map((name): Tool => {
    if (name === 'calc') return calculator;
    if (name === 'python') return pythonTool({ limits: { timeoutMs: block.toolTimeoutMs } });
    if (!block.documents)
      throw new ConfigError('rollout.environment: the search tool needs `documents` (a JSONL file)');
    const search = searchTool(loadDocuments(block.documents), { results: block.searchResults });
    closers.push(() => search.close());
    return search;
  });
  return {
    tools,
    close: () => {
      for (const close of closers) close();
    },
  };
}

/** What one episode's environment is built from: the prompt it opens with and how it is graded. */
export interface EpisodeSpec {
  tokenizer: Tokenizer;
  /** The episode's first observation (BOS included). */
  prompt: number[];
  /** The episode's final reward from its whole completion (actions and tool outputs); tag-tools only. */
  grade: (completion: string) => number;
  /** The episode's problem: a remote environment's task spec (absent: the prompt's text), per-problem documents. */
  problem?: Problem;
}

/** One episode's environment under `block`, over tools built once by buildTools. */
export function environmentFor(
  block: EnvironmentBlock,
  tools: readonly Tool[],
  spec: EpisodeSpec,
): Environment {
  if (block.name === 'remote') return remoteEnvironmentFor(block, spec);
  if (block.name === 'chat') return chatEnvironmentFor(block, tools, spec);
  const make = (episodeTools: readonly Tool[]) =>
    new TagToolEnvironment({
      tokenizer: spec.tokenizer,
      prompt: spec.prompt,
      tools: episodeTools,
      grade: spec.grade,
      toolTimeoutMs: block.toolTimeoutMs,
      maxOutputChars: block.maxOutputChars,
    });
  if (!searchesPerProblem(block)) return make(tools);
  return withProblemSearch(spec.problem, block.searchResults, (search) => make([...tools, search]));
}
