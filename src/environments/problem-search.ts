// Per-problem documents (issue 30, src/tasks/search-facts.ts): a tag-tools block that lists `search` and
// names no `documents` file searches each episode's own problem's metadata.documents ({id, title, text}[]),
// in an index built for that episode and closed when it ends. A problem without valid documents gets a
// search tool that answers every call with a tool error saying so (the episode goes on; the call fails).
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Environment } from './contract.ts';
import { defineTool, type Tool } from './tools/define.ts';
import { documentSchema, type SearchDocument, searchTool } from './tools/search.ts';

const documentsSchema = z.array(documentSchema).min(1).max(1000);

/** The problem's documents, or why there are none usable. */
export function problemDocuments(problem: Problem | undefined): SearchDocument[] | string {
  if (!problem) return 'the episode has no problem, so no per-problem documents';
  const parsed = documentsSchema.safeParse(problem.metadata?.documents);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return `problem ${problem.id} has no usable metadata.documents (${[issue.path.join('.'), issue.message].filter(Boolean).join(': ')}); the block's search has no documents file`;
}

/** The search tool of one episode over its problem's documents; close() frees its index. */
export function problemSearchTool(problem: Problem | undefined, results: number): Tool & { close(): void } {
  const documents = problemDocuments(problem);
  if (typeof documents !== 'string') return searchTool(documents, { results });
  const tool = defineTool({
    name: 'search',
    description: 'Full-text search of the problem documents (this problem has none).',
    input: z.object({ query: z.string().min(1).max(200) }).strict(),
    fromText: (text) => ({ query: text }),
    run: async () => {
      throw new Error(documents);
    },
  });
  return { ...tool, close: () => undefined };
}

/** Whether a block searches per problem: tag-tools listing `search` with no `documents` file. */
export function searchesPerProblem(block: {
  name: string;
  tools?: readonly string[];
  documents?: string;
}): boolean {
  return block.name === 'tag-tools' && (block.tools ?? []).includes('search') && !block.documents;
}

/** The environment `make` builds over the episode's own search tool, closing its index when it closes. */
export function withProblemSearch(
  problem: Problem | undefined,
  results: number,
  make: (search: Tool) => Environment,
): Environment {
  const search = problemSearchTool(problem, results);
  let inner: Environment;
  try {
    inner = make(search);
  } catch (error) {
    search.close();
    throw error;
  }
  return {
    initialObservation: () => inner.initialObservation(),
    step: (action) => inner.step(action),
    close: async () => {
      try {
        await inner.close?.();
      } finally {
        search.close();
      }
    },
  };
}
