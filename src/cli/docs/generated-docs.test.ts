// The committed docs/methods.md and docs/config-reference.md are what `curricula docs` generates now:
// a method, paper, option, default or schema comment changed without regenerating fails here
// (run `npm run docs:methods`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistries, registeredPlugins } from '../../training/registries.ts';
import { generatedDocs } from './generated-docs.ts';
import { pluginSource } from './method-index.ts';

const root = join(import.meta.dirname, '../../..');

describe('generated docs', () => {
  for (const { file, text } of generatedDocs(root)) {
    it(`docs/${file} is up to date (npm run docs:methods)`, () => {
      expect(readFileSync(join(root, 'docs', file), 'utf8')).toBe(text);
    });
  }

  it('the method index lists every method with its source file', () => {
    const methods = generatedDocs(root)[0].text;
    expect(methods).not.toContain('Source: not found');
    expect(methods.match(/^### /gm)).toHaveLength(57 + 6);
    expect(methods).toContain('| `epsilonHigh` | number | `0.28` | Upper clip offset');
  });

  it("a method's arXiv id is the one its file's header cites", () => {
    const mismatched = registeredPlugins(createDefaultRegistries()).flatMap((plugin) => {
      const arxiv = plugin.paper?.arxiv;
      const source = pluginSource(plugin, root);
      if (arxiv === undefined || source === undefined) return [];
      const header = readFileSync(join(root, source), 'utf8').split(/^import /m)[0];
      return header.includes(arxiv) ? [] : [`${plugin.id}: ${arxiv}`];
    });
    expect(mismatched).toEqual([]);
  });
});
