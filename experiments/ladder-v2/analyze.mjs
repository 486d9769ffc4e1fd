// Ladder v2 pilots (README.md): pass@1 and pass@8 per level of each pilot's evaluation, and how many
// levels sit in the learnable band 0.1–0.7 pass@1 (issue 28's target: ≥ 4, a top level ≥ 0.9, one at 0).
// node experiments/ladder-v2/analyze.mjs > experiments/ladder-v2/results/tables.md
import { readFileSync } from 'node:fs';
const pilots = ['a', 'b'];
const rows = [];
for (const pilot of pilots) {
  const result = JSON.parse(readFileSync(new URL(`results/eval-${pilot}-seed11.json`, import.meta.url), 'utf8'));
  const groups = result.groups ?? result.summary.groups;
  const p1 = groups.map((group) => group.passAt['1']);
  const band = p1.filter((p) => p >= 0.1 && p <= 0.7).length;
  rows.push(
    `| ${pilot} | ${groups.map((g, i) => `${p1[i].toFixed(3)} (${(g.passAt['8'] ?? 0).toFixed(3)})`).join(' | ')} | ${band} | ${Math.max(...p1) >= 0.9 ? 'yes' : 'no'} | ${p1.some((p) => p === 0) ? 'yes' : 'no'} |`,
  );
}
const levels = Array.from({ length: 9 }, (_, i) => `${i + 1} digits`);
console.log(`| pilot | ${levels.join(' | ')} | levels in 0.1–0.7 | top ≥ 0.9 | a level at 0 |`);
console.log(`|---|${levels.map(() => '---').join('|')}|---|---|---|`);
for (const row of rows) console.log(row);
