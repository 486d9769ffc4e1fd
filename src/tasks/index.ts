// The task registry: every synthetic task, by name. Config files and problem sets name tasks through it.
// `createTaskRegistry()` builds a fresh, filled instance; `tasks` is the default one, filled on first use
// (importing this file registers nothing).
import { Registry } from '../core/registry.ts';
import { addition } from './addition.ts';
import { additionCalc } from './addition-calc.ts';
import { alignedAddition } from './aligned-addition.ts';
import { alignedAdditionExplain } from './answer-shown.ts';
import { constraints } from './constraints.ts';
import { constraintsJudge } from './constraints-judge.ts';
import { countdown } from './countdown.ts';
import { defineTask, type TaskPlugin } from './define.ts';
import { modularChain } from './modular-chain.ts';
import { searchFacts } from './search-facts.ts';
import { alignedAdditionConfidence } from './stated-confidence.ts';
import { stringCompose } from './string-compose.ts';
import type { Task } from './task.ts';
import { textCorpus, textCorpusOptionsSchema } from './text-corpus.ts';
import { unanswerableAddition } from './unanswerable-addition.ts';
import { unanswerableCountdown } from './unanswerable-countdown.ts';
import { createWriteProblemsTask, writeProblemsOptionsSchema } from './write-problems.ts';

const hallucinationTax = { title: 'The Hallucination Tax of Reinforcement Finetuning', arxiv: '2505.13988' };

/** The built-in tasks that stand alone (write-problems, which wraps another task, is added after them). */
export const builtinTasks: readonly TaskPlugin[] = [
  defineTask(addition),
  defineTask(additionCalc, {
    paper: { title: 'Tool-Zero: tool use elicited by pure RL from zero models (digest ¶52)' },
  }),
  defineTask(alignedAddition),
  defineTask(alignedAdditionExplain, {
    paper: {
      title:
        'Reinforcement Learning Teachers of Test Time Scaling (RLT): a teacher shown the answer writes the explanation; the format is ours',
      code: 'SakanaAI/RLT',
    },
  }),
  defineTask(alignedAdditionConfidence, {
    paper: {
      title:
        'Beyond Binary Rewards: Training LMs to Reason About Their Uncertainty (RLCR); the compact C:q line is our format for a 128-token context',
      arxiv: '2507.16806',
    },
  }),
  defineTask(stringCompose),
  defineTask(countdown, {
    paper: {
      title: "TinyZero's Countdown task",
      code: 'Jiayi-Pan/TinyZero examples/data_preprocess/countdown.py',
    },
  }),
  defineTask(modularChain),
  defineTask(constraints, {
    paper: {
      title: 'Instruction-Following Evaluation for Large Language Models (IFEval)',
      arxiv: '2311.07911',
    },
  }),
  defineTask(constraintsJudge, {
    paper: {
      title:
        'Instruction-Following Evaluation for Large Language Models (IFEval); judge SFT data (per-criterion reasoning, then the verdict) is our construction',
      arxiv: '2311.07911',
    },
  }),
  defineTask(searchFacts, {
    paper: {
      title:
        'R1-Searcher: Incentivizing the Search Capability in LLMs via Reinforcement Learning; Search-R1: Training LLMs to Reason and Leverage Search Engines with Reinforcement Learning',
    },
  }),
  defineTask(unanswerableCountdown, { paper: hallucinationTax }),
  defineTask(unanswerableAddition, { paper: hallucinationTax }),
  defineTask(textCorpus, {
    paper: { title: 'Reinforcement Pre-Training (next-token unit)', arxiv: '2506.08007' },
    optionsSchema: textCorpusOptionsSchema,
  }),
];

function fillTasks(registry: Registry<Task>): void {
  for (const plugin of builtinTasks) registry.add(plugin);
  // The default write-problems task writes addition problems, looked up in this same registry.
  const writeProblems = createWriteProblemsTask({}, (name) => registry.get(name));
  registry.add(defineTask(writeProblems, { optionsSchema: writeProblemsOptionsSchema }));
}

/** A fresh task registry holding the built-ins. */
export function createTaskRegistry(): Registry<Task> {
  return new Registry<Task>('task', fillTasks);
}

/** The default task registry (the loop's and src/api/register.ts's), filled on first use. */
export const tasks: Registry<Task> = createTaskRegistry();

export { defineTask, type TaskExtras, type TaskPlugin } from './define.ts';
export type { DifficultyRange, ParameterRange, Task } from './task.ts';
