// Issue 31 item 8 (ii): the preference pairs of the reward models (README.md). The ladder's cold start
// (examples/checkpoints/ladder-v2-cold-s2) samples 8 completions at T = 1 of training-side aligned-addition
// problems (levels 1–10 in turn, distinct, canonical split, never a held-out problem); for each prompt with both a correct and
// a wrong completion (the task verifier: the gold), up to 2 pairs {chosen: correct, rejected: wrong}, among
// the completions that fit the reward model's context. The
// labels are the gold's, as in Gao et al.'s synthetic setup (a gold RM labels policy samples).
//   node --import tsx experiments/rm-overoptimization/pairs.ts <prompts> <seed> > <file.jsonl>
import { Rng } from '../../src/core/rng.ts';
import { headInput } from '../../src/rewards/reward-model/head.ts';
import { loadEmbeddedPolicy } from '../../src/policy/parallel-factory.ts';
import { promptTokens } from '../../src/tasks/format.ts';
import { canonicalPartition, generateTrainingProblem } from '../../src/tasks/held-out-partition.ts';
import { tasks } from '../../src/tasks/index.ts';
import { heldOutFraction } from '../../src/tasks/problem-mix.ts';

const count = Number(process.argv[2] ?? 1000);
const seed = Number(process.argv[3] ?? 101);
const task = canonicalPartition(tasks.get('aligned-addition'), 'pairs');
const rng = new Rng(seed);
const seen = new Set<string>();
const problems = [];
// Levels in turn; a small level (1 digit: under 50 training problems) runs out of new ones and is skipped.
for (let slot = 0; slot < count; slot++) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const problem = generateTrainingProblem(task, rng, 1 + (slot % 10), heldOutFraction);
    if (seen.has(problem.id)) continue;
    seen.add(problem.id);
    problems.push(problem);
    break;
  }
}
const policy = await loadEmbeddedPolicy('examples/checkpoints/ladder-v2-cold-s2', 1);
let pairs = 0;
const batch = 50;
for (let start = 0; start < problems.length; start += batch) {
  const part = problems.slice(start, start + batch);
  const rows = await policy.sample(
    part.map((problem) => promptTokens(policy.tokenizer, problem)),
    { n: 8, temperature: 1, topP: 1, maxTokens: 104, seed: seed * 1000 + start },
  );
  part.forEach((problem, p) => {
    // Only completions the reward model can read whole (prompt + completion + its suffix in 128 tokens).
    const texts = rows[p]
      .map((sequence) => sequence.text)
      .filter((text) => headInput(policy.tokenizer, policy.contextLength, problem.prompt, text) !== null);
    const correct = texts.filter((text) => task.verify(problem, text).correct);
    const wrong = texts.filter((text) => !task.verify(problem, text).correct);
    for (let k = 0; k < Math.min(2, correct.length, wrong.length); k++) {
      process.stdout.write(`${JSON.stringify({ prompt: problem.prompt, chosen: correct[k], rejected: wrong[k], difficulty: problem.difficulty })}\n`);
      pairs++;
    }
  });
  process.stderr.write(`${start + part.length}/${problems.length} prompts, ${pairs} pairs\n`);
}
await policy.close?.();
