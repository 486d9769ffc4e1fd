// math-answer against Math-Verify's own test suite (issue 31 item 7): reads the cases extract_cases.py
// printed (a local checkout's tests; none are stored here), scores each (gold as the answer, pred as the
// completion) through the reward as registered (`rewards.get('math-answer')`, worker pool), and prints the
// agreement with the suite's expected values — overall, per test file and per test — the false positives
// (we say 1, the suite says 0). With --show, every disagreement's
// gold and prediction go to stderr (to read locally; they are the suite's text, not ours to commit).
// Cases whose call sets other options (match_types other than the default latex+expr, strict: false,
// set-relation comparison, a precision other than 6) are counted apart. Math-Verify's float_rounding p runs
// as math-answer's roundedDigits = p and relTol = 10^-p, allow_set_relation_comp as setRelations,
// match_types as matchTypes; strict: false runs with math-answer's defaults (it has no equivalent).
//   node --import tsx experiments/math-verify-suite/compare.mts /tmp/math-verify-cases.jsonl [--show]
import { readFileSync } from 'node:fs';
import type { Problem } from '../../src/core/problem.ts';
import { rewards } from '../../src/rewards/index.ts';

interface Case {
  file: string;
  test: string;
  gold: string;
  pred: string;
  expected: 0 | 1;
  match_types: string[];
  precision: number;
  strict: boolean;
  allow_set_relation_comp: boolean;
}

const [file, ...flags] = process.argv.slice(2);
if (!file) throw new Error('usage: compare.mts <cases.jsonl> [--show]');
const cases = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as Case);
const defaultOptions = (k: Case) =>
  JSON.stringify(k.match_types) === JSON.stringify(['latex', 'expr']) &&
  k.strict !== false &&
  k.precision === 6 &&
  !k.allow_set_relation_comp;

const problem = (k: Case, i: number): Problem => ({
  id: `mv-suite-${i}`,
  task: 'math',
  prompt: 'Solve the problem.',
  answer: k.gold,
  solution: '',
  category: 'math',
  difficulty: 1,
  params: {},
});

// The options each case runs under (see the header); cases are scored in groups of equal options.
const optionsOf = (k: Case) => ({
  poolSize: 2,
  relTol: k.precision === 6 ? 1e-6 : 10 ** -k.precision,
  roundedDigits: k.precision,
  setRelations: Boolean(k.allow_set_relation_comp),
  matchTypes: k.match_types,
});
const results: { reward: number }[] = new Array(cases.length);
for (const key of [...new Set(cases.map((k) => JSON.stringify(optionsOf(k))))]) {
  const indices = cases.flatMap((k, i) => (JSON.stringify(optionsOf(k)) === key ? [i] : []));
  const reward = rewards.get('math-answer')(JSON.parse(key));
  const scored = await reward.score(indices.map((i) => ({ problem: problem(cases[i], i), completion: cases[i].pred })));
  indices.forEach((i, j) => {
    results[i] = scored[j];
  });
  await reward.close?.();
}

const rows = cases.map((k, i) => ({ ...k, ours: results[i].reward >= 1 ? 1 : 0 }));
const count = (subset: typeof rows) => {
  const agree = subset.filter((k) => k.ours === k.expected).length;
  const falsePositives = subset.filter((k) => k.ours === 1 && k.expected === 0).length;
  return { n: subset.length, agree, falsePositives, rate: subset.length ? agree / subset.length : 0 };
};
const line = (label: string, subset: typeof rows) => {
  const c = count(subset);
  return `| ${label} | ${c.n} | ${c.agree} | ${(100 * c.rate).toFixed(1)}% | ${c.falsePositives} |`;
};
const header = ['| cases | n | agree | agreement | false positives |', '|---|---|---|---|---|'];
const out = [
  `# math-answer vs Math-Verify's test suite`,
  '',
  `${cases.length} cases (Math-Verify's expected values). Throughput is measured by \`curricula bench rewards\`, not here (this run includes the worker pool's start).`,
  '',
  ...header,
  line('all', rows),
  line('default options (latex+expr, strict, precision 6)', rows.filter(defaultOptions)),
  line('other options', rows.filter((k) => !defaultOptions(k))),
  '',
  '## Per test',
  '',
  ...header,
  ...[...new Set(rows.map((k) => `${k.file}:${k.test}`))].map((name) =>
    line(name, rows.filter((k) => `${k.file}:${k.test}` === name)),
  ),
];
console.log(out.join('\n'));
if (flags.includes('--show'))
  for (const k of rows.filter((row) => row.ours !== row.expected))
    console.error(`${k.file}:${k.test} expected ${k.expected} ours ${k.ours} | gold ${JSON.stringify(k.gold)} | pred ${JSON.stringify(k.pred)}`);
