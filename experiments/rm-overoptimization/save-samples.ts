// Issue 31 item 8 (ii): the logged training completions (8 per step) of every run at steps 1, 50, 100 and
// 150, from runs/<run>/run.sqlite into raw/samples.json (what analyze.ts reads for the hack's shape).
//   node --import tsx experiments/rm-overoptimization/save-samples.ts
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const E = 'experiments/rm-overoptimization';
const out: Record<string, unknown[]> = {};
for (const run of readdirSync(join(E, 'runs')).sort()) {
  const file = join(E, 'runs', run, 'run.sqlite');
  if (!/-s\d$/.test(run) || !existsSync(file)) continue;
  const db = new Database(file, { readonly: true });
  out[run.replace(/^rm-overopt-/, '')] = db
    .prepare('SELECT step, prompt, completion, reward FROM samples WHERE step IN (1, 50, 100, 150) ORDER BY rowid')
    .all();
  db.close();
}
writeFileSync(join(E, 'raw/samples.json'), `${JSON.stringify(out)}\n`);
console.log(Object.keys(out).join(' '));
