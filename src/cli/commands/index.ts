// Every CLI command, in the order `curricula --help` lists them. Add one import and one entry per command.
import type { Command } from 'commander';
import { register as registerBench } from './bench.ts';
import { register as registerCompare } from './compare.ts';
import { register as registerDashboard } from './dashboard.ts';
import { register as registerDemo } from './demo.ts';
import { register as registerDistill } from './distill.ts';
import { register as registerEval } from './eval.ts';
import { register as registerPretrain } from './pretrain.ts';
import { register as registerReport } from './report.ts';
import { register as registerReward } from './reward.ts';
import { register as registerSchema } from './schema.ts';
import { register as registerServe } from './serve.ts';
import { register as registerSimulate } from './simulate.ts';
import { register as registerTeach } from './teach.ts';
import { register as registerTinkerCheck } from './tinker-check.ts';
import { register as registerTrain } from './train.ts';

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [
  registerDemo,
  registerPretrain,
  registerTrain,
  registerTeach,
  registerDistill,
  registerEval,
  registerReport,
  registerCompare,
  registerDashboard,
  registerReward,
  registerSimulate,
  registerSchema,
  registerServe,
  registerTinkerCheck,
  registerBench,
];
