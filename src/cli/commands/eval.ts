// `curricula eval --checkpoint <dir>` (or `--policy openai:<baseUrl>[#model]`, an OpenAI-compatible
// server): pass@1, unbiased pass@k and maj@k per task and difficulty, on the held-out set of a task mix or
// on every problem of a JSONL problem set (`--problem-set`).
import { type Command, Option } from 'commander';
import { readConfigFile } from '../../core/config.ts';
import { UserError } from '../../core/errors.ts';
import { shortInput } from '../../core/quote-input.ts';
import { sizeLimits } from '../../core/size-limits.ts';
import type { RemoteEvalPolicy } from '../../eval/evaluate-checkpoint.ts';
import type { EvaluateConfigInput } from '../../eval/evaluate-config.ts';
import { formatEvalTable } from '../../eval/format-table.ts';
import { parseWorkersOption } from '../../policy/parallel-options.ts';
import { boundedInteger } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { parseTaskSpec } from '../task-spec.ts';

export function register(program: Command): void {
  program
    .command('eval')
    .summary('held-out pass@1, pass@k, maj@k of a checkpoint')
    .description('evaluate a checkpoint on held-out problems: pass@1, pass@k (k = powers of two ≤ n), maj@k')
    .option('--checkpoint <dir>', 'run directory (uses its best checkpoint), checkpoint or model directory')
    .option(
      '--policy <spec>',
      'instead of --checkpoint: a remote policy, openai:<baseUrl>[#model] (key from $CURRICULA_OPENAI_API_KEY or $OPENAI_API_KEY)',
    )
    .option(
      '--tokenizer <dir>',
      "with --policy: directory holding the served model's tokenizer.json (default: the embedded suite's)",
    )
    .option(
      '--prompt-format <format>',
      "with --policy: raw ([BOS] + prompt), chat (the --tokenizer model's chat template, as a user turn), or messages (the server's chat API: each sample an episode of /v1/chat/completions requests with the environment's tools, its tool_calls run here; needs --tools or --environment)",
      'raw',
    )
    .option(
      '--no-token-ids',
      "with --prompt-format messages: do not ask for vLLM's return_token_ids (for servers that refuse unknown fields, such as OpenAI's own), so token continuity is not checked",
    )
    .option(
      '--tasks <spec>',
      "tasks and difficulties, e.g. 'addition:1-4,countdown:3' (default: the run's training mix)",
    )
    .addOption(
      new Option(
        '--partition <by>',
        "with --tasks: what the held-out partition hashes, the prompt or the task's canonical key (as tasks[].partition)",
      ).choices(['prompt', 'canonical']),
    )
    .option(
      '--problem-set <file>',
      'instead of --tasks: evaluate every problem of this JSONL problem set (docs/tasks.md); difficulty may be absent',
    )
    .option('--per-problem', "with --json: each problem's id and its count of correct samples")
    .option(
      '--samples <n>',
      `completions per problem (n; at most ${sizeLimits.samples})`,
      boundedInteger('--samples', sizeLimits.samples, 'completions per problem'),
      1,
    )
    .option(
      '--problems <n>',
      `held-out problems per task and difficulty (at most ${sizeLimits.problemsPerDifficulty})`,
      boundedInteger(
        '--problems',
        sizeLimits.problemsPerDifficulty,
        'held-out problems per task and difficulty, each generated and sampled',
      ),
      50,
    )
    .option(
      '--temperature <t>',
      'sampling temperature (default: 0 = greedy for n=1, 1 otherwise)',
      Number.parseFloat,
    )
    .option('--top-p <p>', 'nucleus sampling mass', Number.parseFloat, 1)
    .option('--seed <n>', 'seed of the held-out set and of sampling (default: the run seed)', Number.parseInt)
    .option(
      '--workers <n|auto>',
      'replicas of the policy in worker threads (default auto = one per core; 1 = in process); sampling splits prompts across them',
      parseWorkersOption,
    )
    .option(
      '--tools <list|none>',
      "run every sample as a tag-tools episode with these tools (calc, python, search; comma-separated; limits at their defaults; search without documents searches each problem's own, as search-facts carries), or 'none' for single-turn (default: the run's own rollout.environment, if any)",
    )
    .option(
      '--environment <file>',
      'instead of --tools: run every sample in the environment of this YAML or JSON file, a rollout.environment block (any variant: tag-tools, chat, remote; docs/environments.md)',
    )
    .option('--json', 'print the result as JSON on stdout')
    .option('--quiet', 'no progress output')
    .action(async (options) => {
      if (!['raw', 'chat', 'messages'].includes(options.promptFormat)) {
        throw new UserError(
          `--prompt-format must be raw, chat or messages, got '${shortInput(options.promptFormat)}'`,
        );
      }
      if (options.promptFormat === 'messages' && options.tokenizer !== undefined)
        throw new UserError(
          'eval: --prompt-format messages sends messages; the server tokenizes (drop --tokenizer)',
        );
      if ((options.checkpoint === undefined) === (options.policy === undefined)) {
        throw new UserError('eval: give either --checkpoint <dir> or --policy <spec>');
      }
      if (options.problemSet !== undefined && options.tasks !== undefined) {
        throw new UserError('eval: give either --problem-set or --tasks, not both');
      }
      if (options.partition !== undefined && options.tasks === undefined) {
        throw new UserError(
          "eval: --partition goes with --tasks (a run's own mix keeps its tasks[].partition)",
        );
      }
      if (options.tools !== undefined && options.environment !== undefined) {
        throw new UserError('eval: give either --tools or --environment, not both');
      }
      const { evaluateFromConfig } = await import('../../eval/evaluate-config.ts');
      const policySpec: string | undefined = options.policy;
      const policy = policySpec === undefined ? undefined : await remotePolicy(policySpec, options);
      let progress: ReturnType<typeof createProgress> | undefined;
      const result = await evaluateFromConfig(
        {
          checkpoint: options.checkpoint,
          tasks:
            options.tasks === undefined
              ? undefined
              : parseTaskSpec(options.tasks).map((entry) =>
                  options.partition === undefined ? entry : { ...entry, partition: options.partition },
                ),
          problemSet: options.problemSet,
          perProblem: Boolean(options.perProblem),
          samples: options.samples,
          problemsPerDifficulty: options.problems,
          temperature: options.temperature,
          topP: options.topP,
          seed: options.seed,
          workers: options.workers,
          environment:
            options.environment === undefined
              ? toolsEnvironment(options.tools)
              : (readConfigFile(options.environment) as EnvironmentOption),
        },
        {
          policy,
          source: 'eval options',
          onProgress: (done, total) => {
            progress ??= createProgress('eval', total, { quiet: options.quiet, unit: 'problem' });
            progress.update(done);
          },
        },
      );
      progress?.stop();
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      console.log(
        `checkpoint: ${result.checkpoint}  problems: ${result.problems}  samples per problem: ${result.samples}  temperature: ${result.temperature}${result.environment ? `  environment: ${result.environment.name} (${result.environment.tools.join(', ')})` : ''}`,
      );
      console.log(formatEvalTable(result.summary));
    });
}

/** `--tools calc,python` as an environment block, 'none' as single-turn; absent: the run's own. */
/** The --policy of an evaluation: a sampling backend, or with --prompt-format messages a chat API. */
async function remotePolicy(
  spec: string,
  options: { promptFormat: string; tokenizer?: string; tokenIds: boolean },
): Promise<RemoteEvalPolicy> {
  const { connectChatApi, connectRemotePolicy, readTokenizer } = await import(
    '../../backends/openai/policy-spec.ts'
  );
  if (options.promptFormat === 'messages')
    return { label: spec, chatApi: connectChatApi(spec, { returnTokenIds: options.tokenIds }) };
  return {
    label: spec,
    connect: async () => {
      const tokenizer = readTokenizer(options.tokenizer, {
        promptFormat: options.promptFormat as 'raw' | 'chat',
      });
      return connectRemotePolicy(spec, { tokenizer });
    },
  };
}

type EnvironmentOption = NonNullable<EvaluateConfigInput['environment']>;

/** `--tools calc,python` as an environment block, 'none' as single-turn; absent: the run's own. */
function toolsEnvironment(spec: string | undefined): EnvironmentOption | undefined {
  if (spec === undefined) return undefined;
  if (spec.trim() === 'none') return 'none';
  const tools = spec.split(',').map((tool) => tool.trim());
  // search without a documents file searches each problem's metadata.documents (task search-facts); a
  // collection of one's own needs --environment with a block naming its documents.
  const known = ['calc', 'python', 'search'] as const;
  const unknown = tools.filter((tool) => !(known as readonly string[]).includes(tool));
  if (unknown.length > 0 || tools.length === 0)
    throw new UserError(
      `--tools: unknown tool '${shortInput(unknown[0] ?? spec)}' (choose from ${known.join(', ')}, or none; a document collection of your own goes in an --environment file)`,
    );
  return { name: 'tag-tools', tools: tools as (typeof known)[number][] };
}
