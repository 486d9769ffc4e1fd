// `curricula tinker-check --url <url> --base-model <name>`: probes a Tinker-compatible server (client
// config, served models) and checks each built-in loss against its closed form in value and per-token
// gradient weights (src/backends/tinker/client/conformance.ts). Creates one throwaway model on the
// server. API key: $TINKER_API_KEY. Exit 0 when every checked loss passes, 1 otherwise.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';

export function register(program: Command): void {
  program
    .command('tinker-check')
    .summary("check a Tinker-compatible server's losses")
    .description(
      "check a Tinker-compatible server: served models, and each built-in loss's value and gradient against the closed form",
    )
    .requiredOption('--url <url>', 'server URL: tinker://HOST:PORT or http(s)://HOST:PORT')
    .requiredOption('--base-model <name>', 'the base model to create the throwaway test model from')
    .option('--codec <codec>', 'forward_backward wire codec: protobuf or json', 'protobuf')
    .option('--losses <list>', 'comma-separated losses to check (default: all with a known closed form)')
    .option('--json', 'print the capability record and the results as JSON')
    .action(async (options) => {
      const { TinkerPolicyBackend } = await import('../../backends/tinker/client/index.ts');
      const { checkLossConformance, conformanceLosses } = await import(
        '../../backends/tinker/client/conformance.ts'
      );
      const { probeLosses } = await import('../../backends/tinker/client/loss-probe.ts');
      const { suiteTokenizer } = await import('../../policy/tokenizer.ts');
      const losses = options.losses ? String(options.losses).split(',') : conformanceLosses;
      for (const loss of losses) {
        if (!conformanceLosses.includes(loss))
          throw new UserError(
            `--losses: no closed form for '${loss}'; known: ${conformanceLosses.join(', ')}`,
          );
      }
      const backend = await TinkerPolicyBackend.connect(
        { url: options.url, baseModel: options.baseModel, codec: options.codec },
        { tokenizer: suiteTokenizer() },
      );
      try {
        const accepted = await probeLosses(backend);
        const results = await checkLossConformance(backend, losses);
        if (options.json) {
          console.log(JSON.stringify({ capabilities: backend.capabilities, accepted, results }, null, 2));
        } else {
          const models = backend.capabilities.models.map((model) => model.name).join(', ');
          console.log(`server ${backend.capabilities.url}: models ${models}`);
          const names = (ok: boolean) =>
            accepted
              .filter((probe) => probe.accepted === ok)
              .map((probe) => probe.loss)
              .join(', ') || 'none';
          console.log(`losses accepted: ${names(true)}; refused: ${names(false)}`);
          for (const result of results) {
            const detail = result.accepted
              ? `value error ${result.valueError?.toExponential(1) ?? 'n/a'}, gradient residual ${result.gradientResidual?.toExponential(1) ?? 'not checked (no grad_norm metric)'}`
              : `refused: ${result.error}`;
            console.log(`${result.pass ? 'PASS' : 'FAIL'}  ${result.loss.padEnd(20)} ${detail}`);
          }
        }
        if (!results.every((result) => result.pass)) process.exitCode = 1;
      } finally {
        await backend.close();
      }
    });
}
