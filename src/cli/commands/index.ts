// Every CLI command, grouped and in the order `curricula --help` lists them. Add one import and one entry
// per command, in the group of what it is for. Each command has a .summary() that fits on one line of that
// list (src/cli/help.test.ts checks it at 80 columns) and a longer .description() for its own --help.
import type { Command } from 'commander';
import { register as registerBench } from './bench.ts';
import { register as registerCompare } from './compare.ts';
import { register as registerDashboard } from './dashboard.ts';
import { register as registerDemo } from './demo.ts';
import { register as registerDistill } from './distill.ts';
import { register as registerDocs } from './docs.ts';
import { register as registerEval } from './eval.ts';
import { register as registerPlan } from './plan.ts';
import { register as registerPretrain } from './pretrain.ts';
import { register as registerReport } from './report.ts';
import { register as registerReward } from './reward.ts';
import { register as registerSchema } from './schema.ts';
import { register as registerServe } from './serve.ts';
import { register as registerSimulate } from './simulate.ts';
import { register as registerSweep } from './sweep.ts';
import { register as registerTeach } from './teach.ts';
import { register as registerTinkerCheck } from './tinker-check.ts';
import { register as registerTrain } from './train.ts';
import { register as registerTrainRm } from './train-rm.ts';

export type RegisterCommand = (program: Command) => void;

export interface CommandGroup {
  /** The heading `curricula --help` shows above the group. */
  heading: string;
  commands: RegisterCommand[];
}

export const commandGroups: CommandGroup[] = [
  { heading: 'Get started:', commands: [registerDemo] },
  {
    heading: 'Train:',
    commands: [
      registerPretrain,
      registerTrain,
      registerTeach,
      registerDistill,
      registerTrainRm,
      registerSweep,
    ],
  },
  {
    heading: 'Evaluate and inspect:',
    commands: [
      registerEval,
      registerReport,
      registerCompare,
      registerPlan,
      registerDashboard,
      registerReward,
    ],
  },
  { heading: 'Serve and connect:', commands: [registerServe, registerTinkerCheck] },
  { heading: 'Benchmark and simulate:', commands: [registerBench, registerSimulate] },
  { heading: 'Config:', commands: [registerSchema, registerDocs] },
];
