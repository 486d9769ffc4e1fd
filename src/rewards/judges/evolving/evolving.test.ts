// judge-evolving-rubric (RLER, OnlineRubrics, RRD) against a scripted judge whose replies follow the
// prompt: elicitation prompts get criteria in JSON, grading prompts a `name: yes|no` line per criterion
// decided by what the graded response contains. The numbers are hand-checkable: which criteria join,
// how each member scores, which are deactivated and why, what a resumed run grades with.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RewardInput } from '../../../core/reward.ts';
import { scriptedJudge } from '../../../testing/rewards/scripted-judge.ts';
import { additionProblem } from '../../../testing/rewards/test-problems.ts';
import { EVOLVING_RUBRICS_FILE } from './buffer.ts';
import { pairsOf, readElicited } from './elicit.ts';
import { correlation, correlationWeights, rlerDeactivations } from './refine.ts';
import { createEvolvingRubricReward } from './reward.ts';

const dirs: string[] = [];
const promptOf = (call: { body: Record<string, unknown> }) =>
  (call.body.messages as { content: string }[])[0].content;
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The criteria a grading prompt lists (`- name (choose one of: …): text`). */
const listed = (prompt: string) => [...prompt.matchAll(/^- (\S+) \(choose one of/gm)].map((m) => m[1]);

/** The fenced response of a grading prompt. */
const response = (prompt: string) => /The response:\n`{3,}\n([\s\S]*?)\n`{3,}/.exec(prompt)?.[1] ?? '';

/**
 * A judge: elicitation → `elicited` (JSON); decomposition → `children`; grading → criterion `has_X` (or
 * `has_X_anything`) is yes when the response contains X, `shows_work` when it has a newline, `no_guess` (negative) when it says
 * "guess".
 */
function judge(elicited: object, children: object = { criteria: [] }) {
  return scriptedJudge((prompt) => {
    if (prompt.startsWith('You maintain the grading rubric') || prompt.startsWith('Two responses'))
      return `Here are some.\n${JSON.stringify(elicited)}`;
    if (prompt.startsWith('A grading criterion is too coarse')) return JSON.stringify(children);
    const body = response(prompt);
    return listed(prompt)
      .map((name) => {
        const yes =
          name === 'shows_work'
            ? body.includes('\n')
            : name === 'guessed'
              ? body.includes('guess')
              : name.startsWith('has_')
                ? body.includes(name.slice(4).split('_')[0])
                : true;
        return `Reasoning.\n${name}: ${yes ? 'yes' : 'no'}`;
      })
      .join('\n');
  });
}

const group = ['2+3=5\nA:5', 'A:5', 'guess\nA:4', 'A:4'];
const inputs = (step: number, members = group): RewardInput[] =>
  members.map((completion) => ({ problem: additionProblem('5'), completion, group: members, step }));

const base = { endpoint: 'http://judge.test', temperature: 0 };

describe('judge-evolving-rubric (RLER)', () => {
  it('elicits criteria from the group, grades with them (negatives inverted), filters by spread', async () => {
    const scripted = judge({
      positive: [
        { name: 'shows_work', text: 'The steps are shown.' },
        { name: 'has_5', text: 'The answer is 5.' },
        { name: 'has_A', text: 'There is an answer line.' },
        { name: 'bad name!', text: 'dropped' },
      ],
      negative: [{ name: 'guessed', text: 'The response guesses.' }],
    });
    const reward = createEvolvingRubricReward({ ...base, maxNew: 4 }, { fetch: scripted.fetch });
    const results = await reward.score(inputs(1));
    // verdicts (oriented): shows_work 1,0,1,0; has_5 1,1,0,0; has_A 1,1,1,1; guessed (negative) 1,1,0,1
    expect(results.map((r) => r.reward)).toEqual([4 / 4, 3 / 4, 2 / 4, 2 / 4]);
    const components = results[0].components;
    expect(components.evolving_new).toBe(4);
    expect(components.evolving_dropped_names).toBe(1);
    // has_A has no spread over the group: deactivated; 3 remain active (cap 5)
    expect(components.evolving_deactivated).toBe(1);
    expect(components.evolving_active).toBe(3);
    // one elicitation call for the group, then one grading call per member
    expect(scripted.calls).toHaveLength(1 + 4);
  });

  it('keeps at most maxActive criteria, the most discriminative', () => {
    // spreads: 0.5, 0.433, 0 (no spread), 0.5
    const verdicts = [
      [1, 0, 1, 0],
      [1, 1, 1, 0],
      [1, 1, 1, 1],
      [0, 1, 0, 1],
    ];
    expect(rlerDeactivations(verdicts, 2)).toEqual([
      { index: 2, why: 'no-spread' },
      { index: 1, why: 'over-cap' },
    ]);
  });

  it('a resumed run grades with the rubrics of its resume step; a torn journal line is ignored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evolving-'));
    dirs.push(dir);
    const first = judge({ positive: [{ name: 'shows_work', text: 'steps' }], negative: [] });
    // no verdict cache here: it would answer the resumed step's elicitation with step 2's reply
    const options = { ...base, cache: false };
    const a = createEvolvingRubricReward(options, { fetch: first.fetch });
    a.useRunDirectory?.(dir);
    await a.score(inputs(1));
    const second = judge({ positive: [{ name: 'has_5', text: 'five' }], negative: [] });
    const b = createEvolvingRubricReward(options, { fetch: second.fetch });
    b.useRunDirectory?.(dir);
    await b.score(inputs(2));
    const journal = join(dir, EVOLVING_RUBRICS_FILE);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(2);
    writeFileSync(journal, `${readFileSync(journal, 'utf8')}{"step":3,"chan`);
    // resume at step 2 (its checkpoint was step 1): step 2's and the torn line are dropped
    const third = judge({ positive: [], negative: [] });
    const c = createEvolvingRubricReward(options, { fetch: third.fetch });
    c.useRunDirectory?.(dir);
    const results = await c.score(inputs(2));
    // graded with shows_work alone (with has_5 too, member 1 would score ½)
    expect(results.map((r) => r.reward)).toEqual([1, 0, 1, 0]);
    expect(results[0].components.evolving_active).toBe(1);
    expect(
      third.calls
        .map(promptOf)
        .filter((p) => p.includes('choose one of'))
        .map(listed)[0],
    ).toEqual(['shows_work']);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('no criteria at all fails the members under onFailure; a malformed elicitation is counted', async () => {
    const scripted = scriptedJudge(() => 'not json');
    const reward = createEvolvingRubricReward({ ...base, onFailure: 'exclude' }, { fetch: scripted.fetch });
    const results = await reward.score(inputs(1));
    expect(results.every((r) => r.error && r.failure?.policy === 'exclude')).toBe(true);
    expect(results[0].reason).toMatch(/no criteria/);
    // with persistent criteria the group is still graded, the failed elicitation counted
    const judged = judge({});
    const reward2 = createEvolvingRubricReward(
      { ...base, criteria: [{ name: 'has_5', text: 'five' }] },
      { fetch: judged.fetch },
    );
    const graded = await reward2.score(inputs(1));
    expect(graded.map((r) => r.reward)).toEqual([1, 1, 0, 0]);
    expect(graded[0].components.evolving_elicit_failed).toBe(1);
    expect(graded[0].components.persistent_score).toBe(1);
  });
});

describe('OnlineRubrics and RRD', () => {
  it('online-rubrics asks one comparison per pair: the k-th response with the k-th from the end', async () => {
    expect(pairsOf(4, 2)).toEqual([
      [0, 3],
      [1, 2],
    ]);
    expect(pairsOf(3, 5)).toEqual([[0, 2]]);
    const scripted = judge({ positive: [{ name: 'shows_work', text: 'steps' }], negative: [] });
    const reward = createEvolvingRubricReward(
      { ...base, method: 'online-rubrics' },
      { fetch: scripted.fetch },
    );
    await reward.score(inputs(1));
    const comparisons = scripted.calls.filter((call) => promptOf(call).startsWith('Two responses'));
    expect(comparisons).toHaveLength(2);
    expect(promptOf(comparisons[0])).toContain('2+3=5');
    expect(promptOf(comparisons[0])).toMatch(/Response B:\n`{3,}\nA:4/);
  });

  it('RRD decomposes a criterion nearly all satisfy, drops a redundant one, weights by correlation', async () => {
    const scripted = judge(
      {
        positive: [
          { name: 'has_A', text: 'answer line' },
          { name: 'has_5', text: 'five' },
          { name: 'has_5_too', text: 'five again' },
          { name: 'shows_work', text: 'steps' },
        ],
        negative: [],
      },
      { criteria: [{ name: 'has_2', text: 'uses the 2' }] },
    );
    const reward = createEvolvingRubricReward(
      { ...base, maxNew: 4, refine: { decomposeAbove: 0.9 } },
      { fetch: scripted.fetch },
    );
    const results = await reward.score(inputs(1));
    const c = results[0].components;
    // has_A (all yes) is coarse: decomposed (one child) and deactivated; has_5_too repeats has_5: redundant
    expect(c.evolving_decomposed).toBe(1);
    expect(c.evolving_deactivated).toBe(2);
    // active: has_5, shows_work and the child has_2
    expect(c.evolving_active).toBe(3);
    // the weights: has_A has no spread (weight 1); has_5 and has_5_too correlate 1 (½ each) and 0 with
    // shows_work (1): member 1 (has_A, has_5, has_5_too; no work shown) scores (1 + ½ + ½) / 3
    expect(results[0].reward).toBe(1);
    expect(results[1].reward).toBeCloseTo(2 / 3, 12);
    expect(correlation([1, 1, 0, 0], [1, 0, 1, 0])).toBe(0);
    expect(
      correlationWeights(
        [
          [1, 1, 0, 0],
          [1, 1, 0, 0],
          [1, 0, 1, 0],
        ],
        [1, 1, 1],
      ),
    ).toEqual([0.5, 0.5, 1]);
  });

  it('reads elicited criteria: new names only, up to the limit, polarity from the key', () => {
    const taken = new Set(['old']);
    const read = readElicited(
      '{"positive":[{"name":"old","text":"x"},{"name":"new","text":"y"},{"name":"more","text":"z"}],"negative":[{"name":"bad","text":"w"}]}',
      { keys: ['positive', 'negative'] },
      taken,
      2,
      { depth: 0, step: 3 },
    );
    expect(read.ok && read.value.criteria.map((c) => [c.name, c.polarity])).toEqual([
      ['new', 'positive'],
      ['more', 'positive'],
    ]);
    expect(read.ok && read.value.dropped).toBe(2);
  });
});
