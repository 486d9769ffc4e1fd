// The task registry: every synthetic task, by name. Config files and problem sets name tasks through it.
import { Registry } from '../core/registry.ts';
import { addition } from './addition.ts';
import { countdown } from './countdown.ts';
import { modularChain } from './modular-chain.ts';
import { stringCompose } from './string-compose.ts';
import type { Task } from './task.ts';
import { textCorpus } from './text-corpus.ts';
import { unanswerableAddition } from './unanswerable-addition.ts';
import { unanswerableCountdown } from './unanswerable-countdown.ts';
import { createWriteProblemsTask } from './write-problems.ts';

export const tasks = new Registry<Task>('task')
  .register(addition.name, addition)
  .register(stringCompose.name, stringCompose)
  .register(countdown.name, countdown)
  .register(modularChain.name, modularChain)
  .register(unanswerableCountdown.name, unanswerableCountdown)
  .register(unanswerableAddition.name, unanswerableAddition)
  .register(textCorpus.name, textCorpus);
// Registered last: the default write-problems task writes addition problems, looked up here.
tasks.register(
  'write-problems',
  createWriteProblemsTask({}, (name) => tasks.get(name)),
);

export type { DifficultyRange, ParameterRange, Task } from './task.ts';
