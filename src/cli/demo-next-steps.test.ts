// The commands `curricula demo` suggests after its table, exactly as printed.
import { describe, expect, it } from 'vitest';
import { demoNextSteps, fromHere } from './demo-next-steps.ts';

describe('demoNextSteps', () => {
  it('the default demo from a checkout (npm start)', () => {
    expect(
      demoNextSteps({
        runsDir: 'runs',
        name: 'demo',
        runDir: 'runs/demo',
        trainConfig: 'examples/demo-train.yaml',
      }),
    ).toEqual([
      'next steps:',
      "  # watch this run's curves and samples in a browser",
      '  npx curricula dashboard --runs-dir runs',
      '  # RL again from the same cold start with another task selector (or edit examples/demo-train.yaml)',
      '  npx curricula train --config examples/demo-train.yaml --set runsDir=runs --name demo-sec --set selector.name=sec',
      '  # then the two side by side',
      '  npx curricula compare runs/demo runs/demo-sec',
      '  # the whole demo again, e.g. with --seed 2 (replaces runs/demo)',
      '  npx curricula demo --runs-dir runs --name demo',
    ]);
  });

  it('its own cold start and runs directory, quoted where the shell needs it', () => {
    expect(
      demoNextSteps({
        runsDir: '/tmp/my runs',
        name: 'try',
        runDir: '/tmp/my runs/try',
        trainConfig: '/opt/curricula/examples/demo-train.yaml',
        coldStart: '/tmp/my runs/try-cold',
      }),
    ).toEqual([
      'next steps:',
      "  # watch this run's curves and samples in a browser",
      "  npx curricula dashboard --runs-dir '/tmp/my runs'",
      '  # RL again from the same cold start with another task selector (or edit /opt/curricula/examples/demo-train.yaml)',
      "  npx curricula train --config /opt/curricula/examples/demo-train.yaml --set init.checkpoint='/tmp/my runs/try-cold' --set runsDir='/tmp/my runs' --name try-sec --set selector.name=sec",
      '  # then the two side by side',
      "  npx curricula compare '/tmp/my runs/try' '/tmp/my runs/try-sec'",
      '  # the whole demo again, e.g. with --seed 2 (replaces /tmp/my runs/try)',
      "  npx curricula demo --runs-dir '/tmp/my runs' --name try",
    ]);
  });
});

describe('fromHere', () => {
  it('relative inside the current directory, absolute outside it', () => {
    expect(fromHere('runs/demo', '/repo')).toBe('runs/demo');
    expect(fromHere('/repo/runs/demo', '/repo')).toBe('runs/demo');
    expect(fromHere('/repo', '/repo')).toBe('.');
    expect(fromHere('..runs/demo', '/repo')).toBe('..runs/demo');
    expect(fromHere('/tmp/cli-demo', '/repo')).toBe('/tmp/cli-demo');
    expect(fromHere('../runs', '/repo/sub')).toBe('/repo/runs');
  });
});
