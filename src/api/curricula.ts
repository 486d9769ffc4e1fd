// `curricula/curricula`: the task-selector contract (what to practise next), the names of the built-in
// selectors, and registerSelector.
import { selectors } from '../curricula/index.ts';

export type { GroupOutcome, TaskSelector } from '../core/selector.ts';
export { defineSelector, type SelectorPlugin } from '../curricula/define.ts';
export type { SelectorFactory } from '../curricula/index.ts';
export type { SelectorContext } from '../curricula/shared.ts';
export { type RegisterOptions, registerPlugin, registerSelector } from './register.ts';

/** Names of the selectors registered now (built-in ones, and any a script registered), sorted. */
export function selectorNames(): string[] {
  return selectors.names();
}
