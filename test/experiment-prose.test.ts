// Numbers in an experiment's prose come from its analysis output (issue 28 item 5): every decimal number
// in a README sentence (outside tables and code) must match, at its printed precision, a number of that
// experiment's results/ files or of the README's own tables (copies of analyze.ts's output). Numbers
// whose source is not committed (raw metrics kept out of results/, a constant derived in the sentence)
// are listed below with where they come from; the list only shrinks. Integers (counts) are not checked.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', 'experiments');

/** experiment → numbers its prose may print without a match in results/ (and why). */
const unchecked: Record<string, Record<string, string>> = {
  'ladder-curricula': {
    '0.42': "the cold start's 6-digit pass@8, from docs/ladder.md's measurement",
    '0.4375': 'a constant derived in the sentence (the smallest non-zero normalised variance, 7/16)',
    '1.63': "vcrl's sampled tokens at step 100, from its raw metrics (raw/)",
    '1.69': "vcrl's sampled tokens at step 100, from its raw metrics (raw/)",
  },
  'ladder-guidance': { '8.76': "teacher/kl at step 1, from the run's raw metrics (raw/)" },
  'selectors-embedded': {
    '0.895': 'pass@8 before RL, from the runs (not kept in results/)',
    '0.070': 'the upper end of a 95% interval computed in the prose, not printed in results/',
    '1.38': 'selection entropy, from the runs (not kept in results/)',
    '1.28': 'selection entropy, from the runs (not kept in results/)',
    '1.39': 'ln 4, the largest entropy over four levels',
    '0.781': "bots' seed-1 final pass@1, from the runs (not kept in results/)",
    '0.001': 'the low end of a per-seed range, from the runs (not kept in results/)',
    '0.42': 'mean reward std, from the runs (not kept in results/)',
    '0.39': 'mean reward std, from the runs (not kept in results/)',
  },
};

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(md|json|jsonl|txt|csv)$/.test(name) && statSync(path).size < 5e6 ? [path] : [];
  });
}

/** Decimal numbers of README prose lines with no match (at their precision) among `values`. */
function unmatchedNumbers(readme: string, values: readonly number[]): string[] {
  const missing: string[] = [];
  let inCode = false;
  for (const line of readme.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    if (inCode || line.startsWith('```') || line.startsWith('|')) continue;
    for (const match of line.matchAll(/(?<![\w.])[−-]?\d+\.\d{2,4}(?![\w.])/g)) {
      const text = match[0].replace('−', '-');
      const decimals = text.split('.')[1].length;
      const value = Math.abs(Number(text));
      const tolerance = 0.5 * 10 ** -decimals + 1e-12;
      if (!values.some((candidate) => Math.abs(Math.abs(candidate) - value) <= tolerance))
        missing.push(text.replace(/^-/, ''));
    }
  }
  return missing;
}

const experiments = readdirSync(root).filter((name) => existsSync(join(root, name, 'README.md')));

describe("experiment READMEs' numbers come from their analysis output", () => {
  for (const name of experiments) {
    it(name, () => {
      const readme = readFileSync(join(root, name, 'README.md'), 'utf8');
      const sources = [
        ...filesUnder(join(root, name, 'results')).map((file) => readFileSync(file, 'utf8')),
        readme
          .split('\n')
          .filter((line) => line.startsWith('|'))
          .join('\n'),
      ].join('\n');
      const values = (sources.match(/-?\d+\.\d+(?:e-?\d+)?/g) ?? []).map(Number);
      const missing = [...new Set(unmatchedNumbers(readme, values))].sort();
      expect(missing).toEqual(Object.keys(unchecked[name] ?? {}).sort());
    });
  }

  it('a number that drifted from its table is caught (the check can fail)', () => {
    const readme =
      '| a | 0.734 |\n\nThe held-out pass@1 rose to 0.743 (table: 0.734); −0.01 of it at 5 digits.\n';
    expect(unmatchedNumbers(readme, [0.734, 0.0104])).toEqual(['0.743']);
  });
});
