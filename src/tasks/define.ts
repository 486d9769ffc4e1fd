// The task plug-in shape (src/core/plugin.ts). A Task is a stateless object that already carries its id
// (`name`) and `description`, and the registry hands out the task object itself; `defineTask(task,
// { paper, optionsSchema })` pairs it with the other plug-in fields. A task family configured by options
// (text-corpus, write-problems) names its schema here, so the method index (docs/methods.md) lists its
// options. ./index.ts lists the built-in tasks.
import { type PaperRef, type Plugin, type PluginInfo, pluginInfo } from '../core/plugin.ts';
import type { Task } from './task.ts';

/** A task and its plug-in fields: `create` is the task object the registry hands out. */
export type TaskPlugin = Plugin<Task>;

/** The plug-in fields a task does not carry itself. */
export interface TaskExtras {
  paper?: PaperRef;
  /** The schema of `tasks[].options` (a task family's `configure`). */
  optionsSchema?: PluginInfo['optionsSchema'];
}

/** Pairs a task with its plug-in fields (its id is `task.name`, its description `task.description`). */
export function defineTask(task: Task, extras: TaskExtras = {}): TaskPlugin {
  const info = pluginInfo('task', { ...extras, id: task.name, description: task.description });
  return Object.freeze({ ...info, create: task });
}
