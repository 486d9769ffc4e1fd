// The code-tests reward: run a candidate program against stdin/stdout and function-call tests in a
// bubblewrap sandbox, scored with TAROT's tiered partial credit (arXiv 2602.15449) and LiveCodeBench's
// comparison rules. See docs/rewards/code-tests.md. This file only re-exports the public API.
export { type CompareMode, canonicalDecimal, compareJson, compareOutput } from './compare.ts';
export { type ExtractedProgram, extractProgram } from './extract.ts';
export type { TestStatus, Verdict } from './judge.ts';
export { type CodeTestsOptions, codeTestsOptionsSchema, parseCodeTestsOptions } from './options.ts';
export { probeSandbox, SandboxUnavailableError } from './probe.ts';
export { type CodeTestsReport, CodeTestsReward, createCodeTestsReward, type TestReport } from './reward.ts';
export {
  type Language,
  runInSandbox,
  type SandboxConfig,
  type SandboxLimits,
  type SandboxOutcome,
} from './sandbox.ts';
export { type ProblemTests, parseProblemTests, type TestCase, type Tier, tierNames } from './schema.ts';
export { aggregateTiers, allowedTiers, type TierSchedule, type TierWeights, weightSets } from './tiers.ts';
