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
    expect(methods.match(/^### /gm)).toHaveLength(83 + 12); // 83 methods and 12 run components
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

  it("the README's methods table names exactly the registered selectors, advantages and losses", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const registries = createDefaultRegistries();
    const rows = {
      'Task selectors': registries.selectors,
      Advantages: registries.advantages,
      Losses: registries.losses,
    };
    for (const [family, registry] of Object.entries(rows)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| ${family} |`)) ?? '';
      const builtIn = row.split('|')[2] ?? '';
      const names = [...builtIn.matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]).sort();
      expect(names, family).toEqual(registry.names());
    }
  });
});
