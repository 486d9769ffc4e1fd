// The layers of src/ (ARCHITECTURE.md, "Layers"): every import of a non-test file points to its own
// folder or to a folder of a lower layer, no file imports test support (src/testing/), and no import
// circle exists between files. The graph comes from scripts/import-graph.mjs (type-only imports count:
// a circle through types is still a circle a reader has to hold in their head).
import { describe, expect, it } from 'vitest';
import { cycles, folderOf, importGraph } from '../scripts/import-graph.mjs';

/** Bottom up; a folder may import only folders of lower layers (and itself). */
const layers: readonly (readonly string[])[] = [
  ['core'],
  ['tasks', 'curricula', 'algorithms'],
  ['policy'],
  ['tokenizers'],
  ['rewards', 'guidance', 'backends'],
  ['environments'],
  ['runs'],
  ['eval'],
  ['teachers', 'selfplay'],
  ['training'],
  ['rlt'],
  ['server'],
  ['dashboard'],
  ['bench'],
  ['api'],
  ['index.ts'],
  ['cli'],
];

/**
 * Imports that point up or sideways today, each to be removed by issue 27; the test fails on any import
 * not listed here and on a listed one that is gone (so the list only shrinks).
 */
const knownUpward: readonly string[] = [];

/** Import circles today (files of one strongly connected component), to be broken by issue 27. */
const knownCycles: readonly string[] = [];

const layerOf = new Map(layers.flatMap((folders, layer) => folders.map((folder) => [folder, layer])));

/** Every import between folders that does not point down, as 'from -> to'. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) continue;
      const la = layerOf.get(a);
      const lb = layerOf.get(b);
      if (la === undefined || lb === undefined || lb >= la) found.push(`${from} -> ${to}`);
    }
  }
  return found.sort();
}

describe('layers of src/', () => {
  const graph = importGraph();

  it('every folder of src/ has a layer', () => {
    const folders = new Set([...graph.keys()].map(folderOf));
    folders.delete('testing');
    expect([...folders].filter((folder) => !layerOf.has(folder)).sort()).toEqual([]);
  });

  it('imports point down (no import not listed as known)', () => {
    expect(upwardImports(graph)).toEqual([...knownUpward].sort());
  });

  it('no product file imports test support (src/testing/)', () => {
    const offending = [...graph].flatMap(([from, targets]) =>
      targets.filter((to) => folderOf(to) === 'testing').map((to) => `${from} -> ${to}`),
    );
    expect(offending).toEqual([]);
  });

  it('no import circles (beyond the known ones)', () => {
    expect(
      cycles(graph)
        .map((component) => component.join(' '))
        .sort(),
    ).toEqual([...knownCycles].sort());
  });

  it('finds an upward import and a circle (the checks can fail)', () => {
    const fake = new Map([
      ['core/a.ts', ['training/b.ts']],
      ['training/b.ts', ['core/a.ts']],
    ]);
    expect(upwardImports(fake)).toEqual(['core/a.ts -> training/b.ts']);
    expect(cycles(fake)).toEqual([['core/a.ts', 'training/b.ts']]);
  });
});
