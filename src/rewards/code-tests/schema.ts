// The test specification a code problem carries in `problem.metadata`, validated with zod.
//
//   metadata.tests    = Test[] | { tiers: { basic?: Test[], intermediate?: Test[], complex?: Test[], edge?: Test[] } }
//   Test              = { input: string, output: string, tier? }            (stdin → stdout)
//                     | { fn: string, args: unknown[], expected: unknown, tier? }  (call fn(*args), compare JSON)
//   metadata.language = 'python' (default) | 'javascript' (aliases: py, python3, js, node)
//   metadata.compare  = optional per-problem comparison mode ('exact' | 'whitespace' | 'float')
//
// Tiers follow TAROT (arXiv 2602.15449): basic, intermediate, complex, edge. The authors' data labels them
// basic / medium / high / edge, so 'medium' and 'high' are accepted as aliases. A flat list whose tests carry
// `tier` is grouped by it; a flat list without tiers is one untiered group. Anything else is a DataError that
// names the problem.
import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
import type { Problem } from '../../core/problem.ts';
import type { CompareMode } from './compare.ts';
import type { Language } from './sandbox.ts';

export const tierNames = ['basic', 'intermediate', 'complex', 'edge'] as const;
export type Tier = (typeof tierNames)[number];

const tierAliases: Record<string, Tier> = { medium: 'intermediate', high: 'complex' };

const tierSchema = z.preprocess(
  (value) => (typeof value === 'string' ? (tierAliases[value] ?? value) : value),
  z.enum(tierNames),
);

// A Python/JS identifier, optionally `Class.method`; validated because it is spliced into the JS harness.
const functionName = z.string().regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)?$/, 'must be an identifier');

const stdioTest = z.strictObject({ input: z.string(), output: z.string(), tier: tierSchema.optional() });
const callTest = z.strictObject({
  fn: functionName,
  args: z.array(z.unknown()),
  expected: z.unknown(),
  tier: tierSchema.optional(),
});
const testSchema = z.union([stdioTest, callTest]);
const testList = z.array(testSchema);

const testsSchema = z.union([
  testList.min(1, 'needs at least one test'),
  z.strictObject({
    tiers: z.strictObject({
      basic: testList.optional(),
      intermediate: testList.optional(),
      complex: testList.optional(),
      edge: testList.optional(),
      medium: testList.optional(),
      high: testList.optional(),
    }),
  }),
]);

const languageSchema = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? ({ py: 'python', python3: 'python', js: 'javascript', node: 'javascript', nodejs: 'javascript' }[
          value.toLowerCase()
        ] ?? value.toLowerCase())
      : value,
  z.enum(['python', 'javascript']),
);

const metadataSchema = z.object({
  tests: testsSchema,
  language: languageSchema.default('python'),
  compare: z.enum(['exact', 'whitespace', 'float']).optional(),
});

export type StdioTest = { kind: 'stdio'; input: string; output: string };
export type CallTest = { kind: 'call'; fn: string; args: unknown[]; expected: unknown };
export type TestCase = StdioTest | CallTest;

export interface ProblemTests {
  language: Language;
  compare?: CompareMode;
  /** True when the tests are grouped in TAROT tiers. */
  tiered: boolean;
  /** Tier → tests; an untiered problem keeps all its tests under 'basic' with `tiered` false. */
  groups: Map<Tier, TestCase[]>;
  count: number;
}

function toCase(test: z.infer<typeof testSchema>): TestCase {
  return 'fn' in test
    ? { kind: 'call', fn: test.fn, args: test.args, expected: test.expected }
    : { kind: 'stdio', input: test.input, output: test.output };
}

// Parsed specs are cached per problem object: a group of G completions shares one problem.
const cache = new WeakMap<Problem, ProblemTests>();

export function parseProblemTests(problem: Problem): ProblemTests {
  const cached = cache.get(problem);
  if (cached) return cached;
  const parsed = metadataSchema.safeParse(problem.metadata ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${['metadata', ...issue.path].join('.')}: ${issue.message}`)
      .join('; ');
    throw new DataError(`problem '${problem.id}': malformed code tests (${issues})`);
  }
  const { tests, language, compare } = parsed.data;
  const groups = new Map<Tier, TestCase[]>();
  let tiered = false;
  const add = (tier: Tier, test: z.infer<typeof testSchema>) => {
    const list = groups.get(tier) ?? [];
    list.push(toCase(test));
    groups.set(tier, list);
  };
  if (Array.isArray(tests)) {
    const labelled = tests.filter((test) => test.tier !== undefined).length;
    if (labelled > 0 && labelled < tests.length) {
      throw new DataError(`problem '${problem.id}': either every test has a tier or none does`);
    }
    tiered = labelled > 0;
    for (const test of tests) add(test.tier ?? 'basic', test);
  } else {
    tiered = true;
    for (const [name, list] of Object.entries(tests.tiers)) {
      for (const test of list ?? []) add(tierAliases[name] ?? (name as Tier), test);
    }
  }
  const count = [...groups.values()].reduce((sum, list) => sum + list.length, 0);
  if (count === 0) throw new DataError(`problem '${problem.id}': code tests are empty`);
  // Keep tiers in their canonical order whatever order the data used.
  const ordered = new Map(
    tierNames.filter((tier) => groups.has(tier)).map((tier) => [tier, groups.get(tier)!]),
  );
  const result: ProblemTests = { language, compare, tiered, groups: ordered, count };
  cache.set(problem, result);
  return result;
}
