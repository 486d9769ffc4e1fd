// The `ampo` scaffold's hook on hand-made graded groups, with real tools: the student ladder-cold, the
// teacher demo-cold in a TeacherPool, the run's verifier reward. Checks the trigger (adaptive, hybrid),
// which members are replaced (only incorrect ones), that a solution the verifier rejects is not trained
// (unless trainRejected), the ledger's view (replaced members are not the policy's own), option and setup
// refusals, and that state()/load() restores the scaffold exactly (same members, same teacher texts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { rewards } from '../rewards/index.ts';
import { additionProblem } from '../tasks/addition.ts';
import { TeacherPool } from '../teachers/teacher-pool.ts';
import { createAmpoGuidance } from './ampo.ts';
import type { Attempt, GuidanceContext } from './guidance.ts';
import type { GradedGroup } from './retry-contract.ts';
import type { TeacherHelpTools } from './teacher-help-contract.ts';

let student: PolicyBackend;
let teachers: TeacherPool;
let tools: TeacherHelpTools;
beforeAll(async () => {
  student = await EmbeddedBackend.load('examples/checkpoints/ladder-cold');
  const demo = await EmbeddedBackend.load('examples/checkpoints/demo-cold');
  teachers = new TeacherPool([['demo', demo]], 20_000);
  const reward = rewards.get('verifier')({});
  tools = {
    teachers,
    student,
    room: () => 96,
    topP: 1,
    grade: (problem, completions) => reward.score(completions.map((completion) => ({ problem, completion }))),
  };
});
afterAll(async () => {
  await student.close?.();
  await teachers.close();
});

const hard = additionProblem('1234567', '7654321');
const easy = additionProblem('3', '4');
const pool = [hard, easy, additionProblem('2718281', '3141592')];
const context = (extra: Partial<GuidanceContext> = {}): GuidanceContext => ({
  pool,
  totalSteps: 10,
  source: 'test pool',
  seed: 9,
  teachers: ['demo'],
  ...extra,
});

/** A graded group of `rewards.length` members (1 = correct). */
function graded(problem: Problem, memberRewards: number[]): GradedGroup {
  const attempt: Attempt = { problem, prompt: problem.prompt, prefix: '', guided: false };
  return {
    attempt,
    completions: memberRewards.map((reward) => (reward > 0 ? problem.solution : 'A:0')),
    results: memberRewards.map((reward) => ({ reward, components: {} })),
  };
}

describe('ampo hook', () => {
  it('adaptive: only the group with no correct member is helped, and only failed members are replaced', async () => {
    const ampo = createAmpoGuidance({ oracle: true }, context());
    const groups = [graded(hard, [0, 0, 0, 0]), graded(easy, [1, 0, 0, 0])];
    const replacements = await ampo.teacherHelp!.help(1, groups, tools);
    expect(replacements.length).toBeGreaterThanOrEqual(1); // the oracle passes the verifier
    expect(replacements.every((replacement) => replacement.group === 0)).toBe(true);
    expect(replacements.some((replacement) => replacement.text === hard.solution)).toBe(true);
    const metrics = ampo.metrics();
    expect(metrics['ampo/triggered']).toBe(1);
    expect(metrics['ampo/teacher_solutions']).toBe(2);
    expect(metrics['ampo/selected']).toBe(replacements.length);
  }, 20_000);

  it('hybrid with probability 1 also helps the solved group, never replacing its correct member', async () => {
    const ampo = createAmpoGuidance({ injection: 'hybrid', hybridProbability: 1, oracle: true }, context());
    // The solved group has one incorrect member (3) and the oracle and perhaps demo-cold pass: only 3 is
    // replaced, with the best candidate.
    const groups = [graded(hard, [0, 0, 0, 0]), graded(easy, [1, 1, 1, 0])];
    const replacements = await ampo.teacherHelp!.help(1, groups, tools);
    expect(ampo.metrics()['ampo/triggered']).toBe(2);
    const easyMembers = replacements.filter((r) => r.group === 1).map((r) => r.member);
    expect(easyMembers).toEqual([3]);
    // hybridProbability 0 is adaptive.
    const never = createAmpoGuidance({ injection: 'hybrid', hybridProbability: 0, oracle: true }, context());
    const none = await never.teacherHelp!.help(1, [graded(easy, [1, 0, 0, 0])], tools);
    expect(none).toEqual([]);
    expect(never.metrics()['ampo/triggered']).toBe(0);
  }, 20_000);

  it('a teacher solution the verifier rejects is not trained; trainRejected trains it at reward 1.0', async () => {
    // demo-cold cannot add 7-digit numbers: its solutions are wrong.
    const strict = createAmpoGuidance({}, context());
    const groups = [graded(hard, [0, 0, 0, 0]), graded(pool[2], [0, 0, 0, 0])];
    expect(await strict.teacherHelp!.help(1, groups, tools)).toEqual([]);
    expect(strict.metrics()['ampo/rejected_by_verifier']).toBe(2);
    expect(strict.metrics()['ampo/selected']).toBe(0);
    const lenient = createAmpoGuidance({ trainRejected: true }, context());
    const trained = await lenient.teacherHelp!.help(1, groups, tools);
    expect(trained).toHaveLength(2);
    for (const replacement of trained) {
      expect(replacement.result.reward).toBe(1);
      expect(replacement.result.reason).toMatch(/raised to 1.0/);
    }
  }, 20_000);

  it('observe: replaced members count as guided samples, the rest as the policy own', async () => {
    const ampo = createAmpoGuidance({ oracle: true, perGroup: 1 }, context());
    const groups = [graded(hard, [0, 0, 0, 0]), graded(easy, [1, 1, 0, 0])];
    const [replacement] = await ampo.teacherHelp!.help(1, groups, tools);
    const helpedRewards = [0, 0, 0, 0];
    helpedRewards[replacement.member] = 1;
    ampo.observe(1, [
      { problem: hard, rewards: helpedRewards, advantages: [0, 0, 0, 0] },
      { problem: easy, rewards: [1, 1, 0, 0], advantages: [0, 0, 0, 0] },
    ]);
    const metrics = ampo.metrics();
    expect(metrics['guidance/guided_frac']).toBe(0.5);
    expect(metrics['guidance/guided_pass_rate']).toBe(1);
    expect(metrics['guidance/unguided_pass_rate']).toBe(2 / 7);
  }, 20_000);

  it('state()/load(): a fresh instance loaded from the saved state helps identically', async () => {
    const options = { injection: 'hybrid', hybridProbability: 0.5, perGroup: 2, oracle: true };
    const groups = () => [
      graded(hard, [0, 0, 0, 0, 0, 0, 0, 0]),
      graded(pool[2], [0, 0, 0, 0, 0, 0, 0, 0]),
      graded(easy, [1, 0, 0, 0, 0, 0, 0, 0]),
      graded(easy, [1, 1, 0, 0, 0, 0, 0, 0]),
    ];
    const first = createAmpoGuidance(options, context());
    await first.teacherHelp!.help(1, groups(), tools);
    first.observe(1, []);
    const saved = JSON.parse(JSON.stringify(first.state()));
    const resumed = createAmpoGuidance(options, context());
    resumed.load(saved);
    const expected = await first.teacherHelp!.help(2, groups(), tools);
    const actual = await resumed.teacherHelp!.help(2, groups(), tools);
    expect(actual).toEqual(expected);
    expect(resumed.metrics()).toEqual(first.metrics());
    expect(resumed.state()).toEqual(first.state());
  }, 30_000);
});

describe('ampo options and setup checks', () => {
  it('refuses bad options and a missing pool, with one clear line', () => {
    expect(() => createAmpoGuidance({ perGroup: 0 }, context())).toThrow(ConfigError);
    expect(() => createAmpoGuidance({ injection: 'sometimes' }, context())).toThrow(ConfigError);
    expect(() => createAmpoGuidance({ bogus: 1 }, context())).toThrow(ConfigError);
    expect(() => createAmpoGuidance({}, context({ teachers: [] }))).toThrow("guidance 'ampo' needs teachers");
    expect(() => createAmpoGuidance({ teachers: ['x'] }, context())).toThrow(
      "teacher 'x' is not in teacher.pool (demo)",
    );
    const unsolved = [{ ...hard, solution: '' }];
    expect(() => createAmpoGuidance({ oracle: true }, context({ pool: unsolved }))).toThrow(
      "guidance 'ampo' needs worked solutions",
    );
    expect(() => createAmpoGuidance({ oracle: false }, context({ pool: unsolved }))).not.toThrow();
  });
});
