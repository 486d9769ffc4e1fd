// `curricula/guidance`: the guidance (scaffold) contract — how much help an attempt gets: the prompt, a
// forced prefix, expert traces — the names of the built-in scaffolds, and registerGuidance.
import { guidances } from '../guidance/index.ts';

export { defineGuidance, type GuidancePlugin } from '../guidance/define.ts';
export type {
  Attempt,
  ExpertTrace,
  Guidance,
  GuidanceContext,
  GuidanceFactory,
} from '../guidance/guidance.ts';
export { type RegisterOptions, registerGuidance, registerPlugin } from './register.ts';

/** Names of the scaffolds registered now (built-in ones, and any a script registered), sorted. */
export function guidanceNames(): string[] {
  return guidances.names();
}
