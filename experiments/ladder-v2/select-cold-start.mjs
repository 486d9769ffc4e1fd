// The cold start of one pretraining run, chosen by a rule (README "Selection"): the first checkpoint, in
// step order from --from, whose selection evaluation (seed 13, 50 held-out problems × 8 samples per level,
// T = 1, canonical split) meets the ladder target: ≥ 4 levels with pass@1 in [0.1, 0.7], a level ≥ 0.9 and
// a level at 0. The chosen checkpoint is then re-measured independently (seed 11, 100 problems × 8) by
// the caller. Each evaluation is written to results/select-<run>-step<n>-seed13.json and reused when present.
//   node experiments/ladder-v2/select-cold-start.mjs <runDir> [--from 400] [--to 900]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { meetsTarget } from './target.mjs';

const [runDir, ...rest] = process.argv.slice(2);
if (!runDir) {
  console.error('usage: select-cold-start.mjs <runDir> [--from N] [--to N]');
  process.exit(2);
}
const option = (name, fallback) => {
  const at = rest.indexOf(name);
  return at >= 0 ? Number(rest[at + 1]) : fallback;
};
const from = option('--from', 400);
const to = option('--to', 900);
const results = new URL('results/', import.meta.url).pathname;

const steps = readdirSync(join(runDir, 'checkpoints'))
  .map((name) => /^step-(\d+)$/.exec(name))
  .filter((match) => match && Number(match[1]) >= from && Number(match[1]) <= to)
  .map((match) => Number(match[1]))
  .sort((a, b) => a - b);
for (const step of steps) {
  const out = join(results, `select-${basename(runDir)}-step${step}-seed13.json`);
  if (!existsSync(out)) {
    const checkpoint = join(runDir, 'checkpoints', `step-${String(step).padStart(6, '0')}`, 'model');
    const json = execFileSync(
      process.execPath,
      ['bin/curricula.mjs', 'eval', '--checkpoint', checkpoint, '--tasks', 'aligned-addition:1-10', '--partition',
        'canonical', '--samples', '8', '--problems', '50', '--temperature', '1', '--seed', '13', '--workers', '1',
        '--json', '--quiet'],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    writeFileSync(out, json);
  }
  const groups = JSON.parse(readFileSync(out, 'utf8')).summary.groups;
  const passAt1 = groups.map((group) => group.passAt['1']);
  const verdict = meetsTarget(passAt1);
  console.log(`step ${step}: ${passAt1.map((p) => p.toFixed(3)).join(' ')} | band ${verdict.band} top ${verdict.top.toFixed(3)} zero ${verdict.zero}${verdict.ok ? ' | MEETS' : ''}`);
  if (verdict.ok) {
    console.log(`selected: ${join(runDir, 'checkpoints', `step-${String(step).padStart(6, '0')}`, 'model')}`);
    process.exit(0);
  }
}
console.log('selected: none');
