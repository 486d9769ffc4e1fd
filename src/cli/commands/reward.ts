// `curricula reward check --reward <name> [--options <json>] --input cases.jsonl [--json]`: scores a JSONL
// file of {gold | problem, prediction, expected?} cases with one registered reward and prints one result
// per case plus a summary (count, mean reward, agreement with `expected`, time). Exit code 1 when a case
// disagrees with its expected value, 2 for bad input (DataError with file:line, ConfigError for options).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';

function parseOptionsJson(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`--options is not valid JSON: ${(error as Error).message}`);
  }
}

export function register(program: Command): void {
  const reward = program
    .command('reward')
    .summary('check a reward on cases you write (JSONL)')
    .description('inspect rewards: `reward check` scores cases you write with one reward');
  reward
    .command('check')
    .summary('score a JSONL file of cases with one reward')
    .description('score a JSONL file of {gold | problem, prediction, expected?} cases with one reward')
    .requiredOption(
      '--reward <name>',
      "registered reward name, e.g. 'math-answer', 'calibration', 'composite'",
    )
    .option('--options <json>', 'reward options as JSON, e.g. \'{"relTol":1e-4}\'')
    .requiredOption('--input <file>', 'cases, one JSON object per line')
    .option(
      '--state-dir <dir>',
      "where the reward keeps state between checks (a judge's verdict cache, judge-cache.sqlite): a repeated check asks no verdict twice",
    )
    .option('--json', 'print JSON lines: one per case, then {"summary": …}')
    .action(
      async (options: {
        reward: string;
        options?: string;
        input: string;
        stateDir?: string;
        json?: boolean;
      }) => {
        const rewardOptions = parseOptionsJson(options.options);
        // Loaded on use: the reward registry pulls in compute-engine and the sandbox code.
        const { checkRewardCases, formatCheckedCase, formatCheckSummary, loadRewardCases } = await import(
          '../../rewards/check.ts'
        );
        const cases = await loadRewardCases(options.input);
        const stateDir = options.stateDir === undefined ? undefined : resolve(options.stateDir);
        const { results, summary } = await checkRewardCases(options.reward, rewardOptions, cases, {
          stateDir,
        });
        for (const result of results) {
          console.log(options.json ? JSON.stringify(result) : formatCheckedCase(options.input, result));
        }
        console.log(options.json ? JSON.stringify({ summary }) : formatCheckSummary(summary));
        if (summary.agreement !== null && summary.agreements < summary.withExpected) process.exitCode = 1;
      },
    );
}
