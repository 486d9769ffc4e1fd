// The search tool: BM25 ranking over FTS5, queries reduced to words (FTS5 syntax in a query is just
// text), snippets, and the collection file's refusals.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocuments, matchQuery, searchTool } from './search.ts';

const documents = [
  { id: 'kerro', title: 'Mount Kerro', text: 'Mount Kerro is the tallest peak of Valda, 4120 metres high.' },
  {
    id: 'valda',
    title: 'Valda',
    text: 'Valda is a country whose capital is Orin. Its currency is the lume.',
  },
  { id: 'orin', title: 'Orin', text: 'Orin lies on the river Sesh and was founded in 1187.' },
];
const options = { timeoutMs: 1000, maxOutputChars: 500 };

describe('search tool', () => {
  it('ranks documents by BM25 and answers with title and snippet', async () => {
    const search = searchTool(documents, { results: 2 });
    try {
      const capital = await search.call({ query: 'capital of Valda' }, options);
      expect(capital).toMatchObject({ ok: true });
      const output = (capital as { output: string }).output;
      expect(output.split(' | ')[0]).toBe(
        'Valda: Valda is a country whose capital is Orin. Its currency is the...',
      );
      expect(output.split(' | ')).toHaveLength(2);
      expect(await search.call({ query: 'river Sesh founded' }, options)).toMatchObject({
        ok: true,
        output: expect.stringMatching(/^Orin: /),
      });
      expect(await search.call({ query: 'zebra' }, options)).toEqual({ ok: true, output: 'no results' });
      // FTS5 syntax is only words here: no error, no injection.
      expect(await search.call({ query: '"Valda" NEAR( ) OR * AND -' }, options)).toMatchObject({ ok: true });
      expect(await search.call({ query: '!!!' }, options)).toEqual({
        ok: false,
        kind: 'tool',
        message: 'the query has no words',
      });
      expect(await search.call({ query: '' }, options)).toMatchObject({ ok: false, kind: 'parse' });
    } finally {
      search.close();
    }
  });

  it('reduces a query to quoted words', () => {
    expect(matchQuery('Capital of "Valda"?')).toBe('"capital" OR "valda"');
    expect(matchQuery('what is the')).toBeNull();
    expect(matchQuery(' * ')).toBeNull();
  });

  it('loads a JSONL collection and names the line that is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-docs-'));
    const good = join(dir, 'docs.jsonl');
    writeFileSync(good, `${documents.map((d) => JSON.stringify(d)).join('\n')}\n`);
    expect(loadDocuments(good)).toEqual(documents);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(documents[0])}\n{"id": "x", "title": 3, "text": ""}\n`);
    expect(() => loadDocuments(bad)).toThrow(/bad.jsonl:2: title/);
    writeFileSync(bad, `${JSON.stringify(documents[0])}\n${JSON.stringify(documents[0])}\n`);
    expect(() => loadDocuments(bad)).toThrow(/id 'kerro' repeats/);
    writeFileSync(bad, 'not json\n');
    expect(() => loadDocuments(bad)).toThrow(/:1: not JSON/);
    expect(() => loadDocuments(join(dir, 'missing.jsonl'))).toThrow(/ENOENT/);
  });
});
