// Ladder v2 pilots (README.md): pass@1 (pass@8) per level of each pilot's evaluation, and how many levels
// sit in the learnable band 0.1–0.7 pass@1 (issue 28's target: ≥ 4, a top level ≥ 0.9, one at 0).
// node experiments/ladder-v2/analyze.mjs > experiments/ladder-v2/results/tables.md
import { readdirSync, readFileSync } from 'node:fs';
import { meetsTarget } from './target.mjs';

const pilots = [
  { pilot: 'a', axis: 'addition digits (1–8 seen, thinning; 9 unseen)' },
  { pilot: 'b', axis: 'addition digits (1–8 seen, steeper; 9 unseen)' },
  { pilot: 'c', axis: 'modular-chain steps (1–7 seen; 8 unseen), 1,200 steps' },
  { pilot: 'd', axis: 'modular-chain steps (1–6 seen; 7–8 unseen), 600 steps' },
  { pilot: 'e', axis: 'aligned-addition digits (1–8 seen, uniform; 9–10 unseen), 1,200 steps' },
  { pilot: 'e900', axis: 'pilot e at step 900 of its 1,200' },
  { pilot: 'e300', axis: 'pilot e at step 300 of its 1,200' },
  { pilot: 'f', axis: 'aligned-addition digits (1–8 seen, uniform; 9–10 unseen), 600 steps' },
  { pilot: 'f300', axis: 'pilot f at step 300 of its 600' },
  { pilot: 'g', axis: 'aligned-addition digits (1–8 seen, mild thinning; 9–10 unseen)' },
  { pilot: 'h', axis: 'aligned-addition digits (1–8 seen, steep thinning; 9–10 unseen)' },
  { pilot: 'i-s1', axis: 'aligned-addition, 5–8 digits at 3.2–4.5 % of the mix, pretraining seed 1' },
  { pilot: 'i-s2', axis: 'pilot i, pretraining seed 2' },
  { pilot: 'j-s1', axis: 'aligned-addition, 1–4 digits 72 %, 5–8 digits 7 % each, 900 steps, seed 1' },
  { pilot: 'j-s2', axis: 'pilot j, pretraining seed 2' },
  { pilot: 'j600-s1', axis: 'pilot j at step 600 of its 900, seed 1' },
  { pilot: 'j600-s2', axis: 'pilot j at step 600 of its 900, seed 2' },
];
console.log('| pilot | axis | pass@1 (pass@8) by level 1, 2, … | levels in 0.1–0.7 | top ≥ 0.9 | a level at 0 |');
console.log('|---|---|---|---|---|---|');
for (const { pilot, axis } of pilots) {
  const result = JSON.parse(readFileSync(new URL(`results/eval-${pilot}-seed11.json`, import.meta.url), 'utf8'));
  const groups = result.summary.groups;
  const p1 = groups.map((group) => group.passAt['1']);
  const { band, top, zero } = meetsTarget(p1);
  const cells = groups.map((group, i) => `${p1[i].toFixed(3)} (${(group.passAt['8'] ?? 0).toFixed(3)})`).join(' · ');
  console.log(`| ${pilot} | ${axis} | ${cells} | ${band} | ${top >= 0.9 ? 'yes' : 'no'} | ${zero ? 'yes' : 'no'} |`);
}

// Selection (README "Selection"): select-cold-start.mjs's evaluations (seed 13, 50 problems × 8) of each
// seed's checkpoints in step order, and the re-measurement of the chosen one (seed 11, 100 problems × 8).
const resultsDir = new URL('results/', import.meta.url);
const row = (label, file) => {
  const groups = JSON.parse(readFileSync(new URL(file, resultsDir), 'utf8')).summary.groups;
  const p1 = groups.map((group) => group.passAt['1']);
  const v = meetsTarget(p1);
  const cells = groups.map((group, i) => `${p1[i].toFixed(3)} (${(group.passAt['8'] ?? 0).toFixed(3)})`).join(' · ');
  console.log(`| ${label} | ${cells} | ${v.band} | ${v.top >= 0.9 ? 'yes' : 'no'} | ${v.zero ? 'yes' : 'no'} | ${v.ok ? '**yes**' : 'no'} |`);
};
console.log('');
console.log('### Selection and re-measurement (pilot j, checkpoints every 50 steps)');
console.log('');
console.log('| seed · step · evaluation | pass@1 (pass@8) by level 1–10 | levels in 0.1–0.7 | top ≥ 0.9 | a level at 0 | meets |');
console.log('|---|---|---|---|---|---|');
const files = readdirSync(resultsDir);
for (const seed of [1, 2, 3, 4]) {
  const selections = files
    .map((name) => new RegExp(`^select-ladder-v2-j-s${seed}-step(\\d+)-seed13\\.json$`).exec(name))
    .filter(Boolean)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  for (const match of selections) row(`s${seed} · ${match[1]} · selection (seed 13)`, match[0]);
  for (const name of files.filter((f) => new RegExp(`^remeasure-j-s${seed}-step\\d+-seed11\\.json$`).test(f))) {
    row(`s${seed} · ${/step(\d+)/.exec(name)[1]} · **re-measurement (seed 11)**`, name);
  }
}

// The RL pilot's runs (raw/<run>/result.json): held-out pass@1 per level and overall, before and after.
console.log('');
console.log('### RL pilot (rl-pilot.yaml): held-out pass@1 before → after, by level 1–10 and overall');
console.log('');
console.log('| run | by level | overall |');
console.log('|---|---|---|');
const rawDir = new URL('raw/', import.meta.url);
for (const run of readdirSync(rawDir).sort()) {
  const result = JSON.parse(readFileSync(new URL(`${run}/result.json`, rawDir), 'utf8'));
  const [before, after] = [result.initialEval, result.finalEval];
  const levels = before.groups.map((group, i) => `${group.passAt['1'].toFixed(3)} → ${after.groups[i].passAt['1'].toFixed(3)}`);
  console.log(`| ${run} | ${levels.join(' · ')} | ${before.overall.passAt1.toFixed(3)} → ${after.overall.passAt1.toFixed(3)} |`);
}
