// The fields of an environment block whose tools run in this process (the tag-tools and chat variants of
// `rollout.environment`): which tools, and how the search and every call are bounded. buildTools
// (../block.ts) builds them.
import { z } from 'zod';

/** Zod shape of the in-process tool fields, spread into each variant's schema. */
export const localToolsShape = {
  /**
   * The tools the policy may call: calc (exact integer arithmetic), search (a document collection),
   * python (a program run in the code-tests sandbox; its output is the answer).
   */
  tools: z
    .array(z.enum(['calc', 'search', 'python']))
    .min(1)
    .default(['calc']),
  /** With the search tool: documents per answer. */
  searchResults: z.number().int().min(1).max(10).default(3),
  /** Wall-clock ms per tool call. */
  toolTimeoutMs: z.number().int().min(1).default(5000),
};
