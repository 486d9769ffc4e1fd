// `curricula serve` refuses what would expose or misconfigure a server, before it loads anything: a
// non-loopback host without an API key, no protocol, a host that is not an address, a remote --policy
// without its tokenizer or with --tinker. One line, exit 2.
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.ts';

const checkpoint = 'examples/checkpoints/demo-cold';

describe('curricula serve: refused options', () => {
  it('names each mistake in one line and exits 2', () => {
    const cases: [string[], RegExp][] = [
      [['--openai', '--host', '0.0.0.0'], /--host 0\.0\.0\.0 is not loopback; set --api-key/],
      [['--tinker', '--host', '192.168.1.5', '--port', '0'], /is not loopback; set --api-key/],
      [[], /choose --openai, --tinker or both/],
      [['--openai', '--host', 'example.com', '--api-key', 'k'], /--host must be an IP address or localhost/],
      [['--openai', '--port', '-1'], /--port must be an integer ≥ 0/],
      [['--openai', '--policy', 'openai:http://127.0.0.1:9#m'], /either --checkpoint <dir> or --policy/],
      [['--openai', '--tokenizer', checkpoint], /--tokenizer goes with --policy/],
    ];
    for (const [extra, message] of cases) {
      const result = runCli(['serve', '--checkpoint', checkpoint, ...extra]);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
    }
    const remote = (extra: string[]) =>
      runCli(['serve', '--policy', 'openai:http://127.0.0.1:9#m', ...extra]);
    expect(remote(['--tinker', '--tokenizer', checkpoint]).stderr).toMatch(/--policy serves sampling only/);
    expect(remote(['--openai']).stderr).toMatch(/--policy needs --tokenizer <dir>/);
    expect(remote(['--openai', '--tokenizer', '/nonexistent']).stderr).toMatch(/no tokenizer.json there/);
  });
});
