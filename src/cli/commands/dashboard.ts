// `curricula dashboard`: a local web app over a runs directory (docs/dashboard.md). Loopback by default;
// any other --host gets a generated access token, printed once in the URL.
import { type Command, Option } from 'commander';
import { UserError } from '../../core/errors.ts';

interface DashboardCliOptions {
  runsDir: string;
  port: string;
  host: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('dashboard')
    .summary('live web dashboard over a runs directory')
    .description('live web dashboard over a runs directory (read-only: runs, curves, samples, compare)')
    .option('--runs-dir <dir>', 'runs directory', 'runs')
    .option('--port <port>', 'port (0: any free port)', '8050')
    .option(
      '--host <host>',
      'host to listen on; anything but loopback requires the printed token',
      '127.0.0.1',
    )
    .addOption(new Option('--json', 'print {url, runsDir} as JSON'))
    .action(async (options: DashboardCliOptions) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new UserError(`--port must be an integer from 0 to 65535, got '${options.port}'`);
      }
      const { buildDashboard } = await import('../../dashboard/server.ts');
      const { generateToken, isLoopback } = await import('../../dashboard/access-token.ts');
      const token = isLoopback(options.host) ? undefined : generateToken();
      const app = await buildDashboard({ runsDir: options.runsDir, token });
      await app.listen({ port, host: options.host });
      const address = app.server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
      const url = `http://${shownHost}:${bound}/${token ? `?token=${token}` : ''}`;
      if (options.json) console.log(JSON.stringify({ url, runsDir: options.runsDir }));
      else console.log(`dashboard: ${url}`);
    });
}
