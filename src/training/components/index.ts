// The run components of `curricula train`, in the order their hooks run within each phase of the step
// (rl/context.ts, RlStepHooks) and their metrics appear. Order matters: the retry round draws from the
// run's random stream before teacher help runs, and the demo and resume fingerprints depend on it.
// A new feature adds its definition here, once.

import { criticComponent } from './critic/component.ts';
import type { RlComponentDefinition } from './definition.ts';
import { environmentComponent } from './environment/component.ts';
import { expertTracesComponent } from './expert-traces/component.ts';
import { reliftComponent } from './relift/component.ts';
import { remaxComponent } from './remax/component.ts';
import { remixComponent } from './remix/component.ts';
import { retryComponent } from './retry/component.ts';
import { rolloutBudgetComponent } from './rollout-budget/component.ts';
import { selfPlayComponent } from './self-play.ts';
import { tangoComponent } from './tango/component.ts';
import { teachersComponent } from './teachers/component.ts';
import { tokenRewardComponent } from './token-rm/component.ts';

export const rlComponents: readonly RlComponentDefinition[] = [
  rolloutBudgetComponent,
  expertTracesComponent,
  retryComponent,
  reliftComponent,
  teachersComponent,
  selfPlayComponent,
  environmentComponent,
  tangoComponent,
  criticComponent,
  remaxComponent,
  tokenRewardComponent,
  remixComponent,
];
