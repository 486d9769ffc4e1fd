// The two evaluation sets of the compositions experiment (README.md), written to raw/: 100 problems per
// depth (2 and 3) whose composition is held out (never trained: canonical partition point < 0.2), and 100
// per depth whose composition was trained, on inputs drawn afresh (each problem's prompt is also on the
// held-out side of the prompt partition, so no trained prompt recurs). Seeded: the files are the same on
// every machine.
//   node --import tsx experiments/string-compositions/problem-sets.mts
import { join } from 'node:path';
import { Rng } from '../../src/core/rng.ts';
import { partitionPoint } from '../../src/tasks/held-out-partition.ts';
import { writeProblemSet } from '../../src/tasks/problem-set.ts';
import { stringCompose, stringComposeCanonicalKey } from '../../src/tasks/string-compose.ts';
import type { Problem } from '../../src/core/problem.ts';

const fraction = 0.2;
const perDepth = 100;
const rng = new Rng(2026);
const sets: Record<'unseen' | 'seen', Problem[]> = { unseen: [], seen: [] };
for (const depth of [2, 3]) {
  const counts = { unseen: 0, seen: 0 };
  const prompts = new Set<string>();
  while (counts.unseen < perDepth || counts.seen < perDepth) {
    const problem = stringCompose.generate(rng, depth);
    if (prompts.has(problem.prompt)) continue;
    const held = partitionPoint(stringCompose.name, stringComposeCanonicalKey(problem)) < fraction;
    const side = held ? 'unseen' : 'seen';
    if (counts[side] >= perDepth) continue;
    if (!held && partitionPoint(stringCompose.name, problem.prompt) >= fraction) continue;
    prompts.add(problem.prompt);
    sets[side].push(problem);
    counts[side]++;
  }
}
const raw = join(import.meta.dirname, 'raw');
for (const side of ['unseen', 'seen'] as const) await writeProblemSet(join(raw, `${side}.jsonl`), sets[side]);
console.log(`wrote raw/unseen.jsonl and raw/seen.jsonl (${perDepth} problems per depth 2, 3 each)`);
