// The task registry: every synthetic task, by name. Config files and problem sets name tasks through it.
import { Registry } from '../core/registry.ts';
import { addition } from './addition.ts';
import type { Task } from './task.ts';

export const tasks = new Registry<Task>('task').register(addition.name, addition);

export type { Task } from './task.ts';
