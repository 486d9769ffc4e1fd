// The import graph of src/ (non-test files): every relative import, type-only ones included, resolved to
// a file. Used by test/layers.test.ts and runnable by hand: `node scripts/import-graph.mjs [--cycles]`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const srcDir = join(root, 'src');

export function isTestFile(path) {
  return /\.test\.ts$/.test(path) || /(^|\/)(testing|fixtures)\//.test(path);
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const importPattern =
  /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

/** Strips comments so an import in a doc comment is not an edge. */
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** { file: [imported files] } for src/, paths relative to src/, tests left out unless includeTests. */
export function importGraph({ includeTests = false } = {}) {
  const graph = new Map();
  for (const file of walk(srcDir)) {
    const rel = relative(srcDir, file);
    if (!includeTests && isTestFile(rel)) continue;
    const text = stripComments(readFileSync(file, 'utf8'));
    const targets = new Set();
    for (const match of text.matchAll(importPattern)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec?.startsWith('.')) continue;
      const target = relative(srcDir, resolve(dirname(file), spec));
      if (target.startsWith('..')) continue;
      targets.add(target);
    }
    graph.set(rel, [...targets].sort());
  }
  return graph;
}

/** The top folder of a src/ path ('training/rl/step.ts' → 'training'; 'index.ts' → 'index.ts'). */
export function folderOf(path) {
  return path.split('/')[0];
}

/** Strongly connected components with more than one file (Tarjan), each sorted. */
export function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)));
    }
    if (low.get(v) === indices.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const graph = importGraph();
  if (process.argv.includes('--cycles')) {
    for (const component of cycles(graph)) console.log(component.join('  '));
  } else {
    const edges = new Map();
    for (const [from, targets] of graph) {
      for (const to of targets) {
        const key = `${folderOf(from)} -> ${folderOf(to)}`;
        if (folderOf(from) !== folderOf(to)) edges.set(key, [...(edges.get(key) ?? []), `${from} -> ${to}`]);
      }
    }
    for (const [key, list] of [...edges].sort()) console.log(`${key}  (${list.length})`);
  }
}
