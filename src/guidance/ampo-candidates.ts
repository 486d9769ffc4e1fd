// AMPO's candidate solutions for the groups it helps (ampo.ts, steps 2-4 of its header): each pool
// teacher writes one solution per helped problem (one teachers.sample call per teacher and token budget,
// so a failing teacher costs only its own solutions), the oracle adds the worked solution, the run's
// reward grades every candidate, and the current student scores the kept ones (comprehension.ts, one
// forward for all). A candidate that does not fit the group's room (its tokens + EOS) is dropped.
import type { Problem } from '../core/problem.ts';
import type { RewardResult } from '../core/reward.ts';
import type { Rng } from '../core/rng.ts';
import { promptTokens } from '../tasks/format.ts';
import type { Candidate } from './ampo-selection.ts';
import { comprehensionSequence, meanGoldProbability } from './comprehension.ts';
import type { GradedGroup } from './retry-contract.ts';
import type { TeacherHelpTools } from './teacher-help-contract.ts';

export interface GradedCandidate extends Candidate {
  result: RewardResult;
}

export interface CandidateOptions {
  teachers: readonly string[];
  oracle: boolean;
  temperature: number;
  correctAbove: number;
  /** Keep candidates the verifier rejects (trainRejected). */
  keepRejected: boolean;
  /** Score comprehension (selection 'comprehension'). */
  score: boolean;
  /** The scaffold's stream: one sampling seed per teacher call. */
  rng: Rng;
}

export interface FoundCandidates {
  /** Per helped group (in `chosen` order): its verified (or kept) candidates in pool order. */
  perGroup: GradedCandidate[][];
  solutions: number;
  failures: number;
  rejected: number;
  scoreSum: number;
  scored: number;
}

export async function collectCandidates(
  chosen: readonly number[],
  groups: readonly GradedGroup[],
  tools: TeacherHelpTools,
  options: CandidateOptions,
): Promise<FoundCandidates> {
  const written: { source: string; text: string }[][] = chosen.map(() => []);
  let failures = 0;
  for (const teacher of options.teachers) {
    const tokenizer = tools.teachers.backend(teacher).tokenizer;
    // One call per token budget (the groups' rooms differ with their prompts' lengths).
    const byBudget = new Map<number, number[]>();
    chosen.forEach((index, c) => {
      const budget = tools.room(index) - 1;
      if (budget >= 1) byBudget.set(budget, [...(byBudget.get(budget) ?? []), c]);
    });
    for (const [budget, members] of byBudget) {
      const problems = members.map((c) => groups[chosen[c]].attempt.problem);
      const seed = options.rng.nextUint32();
      try {
        const sampled = await tools.teachers.sample(
          problems.map((problem) => promptTokens(tokenizer, problem)),
          { n: 1, temperature: options.temperature, topP: tools.topP, maxTokens: budget, seed },
          { teacher },
        );
        members.forEach((c, j) => {
          const text = sampled[j]?.[0]?.text;
          if (typeof text === 'string') written[c].push({ source: teacher, text });
          else failures++;
        });
      } catch {
        // Logged by the pool (teacher/failures); here: the solutions this call would have written.
        failures += members.length;
      }
    }
  }
  if (options.oracle) {
    chosen.forEach((index, c) => {
      written[c].push({ source: 'oracle', text: groups[index].attempt.problem.solution });
    });
  }
  const student = tools.student;
  const fits = (index: number, text: string) =>
    student.tokenizer.encode(text, 'teacher solution').length + 1 <= tools.room(index);
  const perGroup: GradedCandidate[][] = [];
  let solutions = 0;
  let rejected = 0;
  for (const [c, index] of chosen.entries()) {
    const problem = groups[index].attempt.problem;
    const usable = written[c].filter((candidate) => fits(index, candidate.text));
    solutions += written[c].length;
    const results =
      usable.length > 0
        ? await tools.grade(
            problem,
            usable.map((item) => item.text),
          )
        : [];
    const graded = usable.map((item, i) => ({ ...item, score: 0, result: results[i] }));
    const accepted = graded.filter((item) => item.result.reward > options.correctAbove);
    rejected += graded.length - accepted.length;
    perGroup.push(options.keepRejected ? graded : accepted);
  }
  const { scoreSum, scored } = options.score
    ? await scoreComprehension(chosen, groups, perGroup, tools)
    : { scoreSum: 0, scored: 0 };
  return { perGroup, solutions, failures, rejected, scoreSum, scored };
}

/** Sets each candidate's score (scoreB under the current student); one forward over all of them. */
async function scoreComprehension(
  chosen: readonly number[],
  groups: readonly GradedGroup[],
  perGroup: GradedCandidate[][],
  tools: TeacherHelpTools,
): Promise<{ scoreSum: number; scored: number }> {
  const student = tools.student;
  const jobs = chosen.flatMap((index, c) => {
    const problem: Problem = groups[index].attempt.problem;
    const context = promptTokens(student.tokenizer, problem);
    return perGroup[c].map((candidate) => ({
      candidate,
      sequence: comprehensionSequence(
        student.tokenizer,
        context,
        candidate.text,
        problem.answer,
        student.contextLength,
      ),
    }));
  });
  const open = jobs.filter((job) => job.sequence !== null);
  const logprobs = open.length > 0 ? await student.forward(open.map((job) => job.sequence!.tokens)) : [];
  open.forEach((job, j) => {
    job.candidate.score = meanGoldProbability(job.sequence!, logprobs[j]);
  });
  const scoreSum = jobs.reduce((sum, job) => sum + job.candidate.score, 0);
  return { scoreSum, scored: jobs.length };
}
