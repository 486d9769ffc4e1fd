// Search over a local document collection (issue 30): SQLite FTS5 through better-sqlite3 (already a
// dependency, maintained, and its full-text engine ranks with BM25, the ranking R1-Searcher's and
// NeMo-RL's retrievers use), built in memory once per collection. A query is reduced to its words (letters
// and digits, English stopwords left out), each quoted, joined by OR, so no input can be FTS5 syntax; results are the top documents by
// bm25() with the matching part of each as a snippet. Documents come from the caller or a JSONL file of
// {id, title, text} lines (loadDocuments), never from the network.
import { readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { defineTool, type Tool } from './define.ts';

/** One document of a collection. */
export interface SearchDocument {
  id: string;
  title: string;
  text: string;
}

/** How many documents an answer gives, and how long their snippets are. */
export interface SearchOptions {
  /** Documents per answer (default 3). */
  results?: number;
  /** Words of each snippet (default 12). */
  snippetWords?: number;
}

/** Documents of a collection file at most (and its size). */
const maxDocuments = 200_000;
const maxFileBytes = 256 * 1024 * 1024;

/** English function words left out of queries (on a small collection they outweigh the content words). */
const stopwords = new Set(
  'a an and are as at be by for from has his her in is it its of on or that the their to was what when where which who whose why with'.split(
    ' ',
  ),
);

/** The FTS5 query of a text: its words but stopwords, quoted and joined by OR; null when none is left. */
export function matchQuery(text: string): string | null {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !stopwords.has(word));
  return words.length === 0
    ? null
    : [...new Set(words)]
        .slice(0, 32)
        .map((word) => `"${word}"`)
        .join(' OR ');
}

/** A search index over `documents` and the tool that queries it; close() frees the index. */
export function searchTool(
  documents: readonly SearchDocument[],
  options: SearchOptions = {},
): Tool & { close(): void } {
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize = 'unicode61')");
  const insert = db.prepare('INSERT INTO docs (id, title, text) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const document of documents) insert.run(document.id, document.title, document.text);
  })();
  const query = db.prepare(
    `SELECT title, snippet(docs, 2, '', '', '...', ?) AS snippet FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?`,
  );
  const results = options.results ?? 3;
  const snippetWords = options.snippetWords ?? 12;
  const tool = defineTool({
    name: 'search',
    description: `Full-text search of the document collection: the ${results} best matches, each as "title: snippet".`,
    input: z.object({ query: z.string().min(1).max(200) }).strict(),
    fromText: (text) => ({ query: text }),
    run: async ({ query: text }) => {
      const match = matchQuery(text);
      if (!match) throw new Error('the query has no words');
      const rows = query.all(snippetWords, match, results) as { title: string; snippet: string }[];
      return rows.length === 0 ? 'no results' : rows.map((row) => `${row.title}: ${row.snippet}`).join(' | ');
    },
  });
  return { ...tool, close: () => db.close() };
}

/** One document of a collection, as a file line or a problem's metadata.documents entry carries it. */
export const documentSchema = z.strictObject({
  id: z.string().min(1).max(200),
  title: z.string().max(500),
  text: z.string().max(100_000),
});

/** The documents of a JSONL file ({id, title, text} per line); ConfigError naming the line that is wrong. */
export function loadDocuments(path: string): SearchDocument[] {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new ConfigError(`documents ${path}: ${(error as Error).message}`);
  }
  if (size > maxFileBytes) throw new ConfigError(`documents ${path}: larger than ${maxFileBytes >> 20} MiB`);
  const documents: SearchDocument[] = [];
  const ids = new Set<string>();
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ConfigError(`documents ${path}:${index + 1}: not JSON`);
      }
      const parsed = documentSchema.safeParse(value);
      if (!parsed.success)
        throw new ConfigError(
          `documents ${path}:${index + 1}: ${parsed.error.issues[0].path.join('.') || 'line'}: ${parsed.error.issues[0].message}`,
        );
      if (ids.has(parsed.data.id))
        throw new ConfigError(`documents ${path}:${index + 1}: id '${parsed.data.id}' repeats`);
      ids.add(parsed.data.id);
      documents.push(parsed.data);
      if (documents.length > maxDocuments)
        throw new ConfigError(`documents ${path}: more than ${maxDocuments} documents`);
    });
  if (documents.length === 0) throw new ConfigError(`documents ${path}: no documents`);
  return documents;
}
