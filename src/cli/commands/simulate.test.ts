import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UserError } from '../../core/errors.ts';
import { register } from './simulate.ts';

function program(): Command {
  const root = new Command();
  root.exitOverride();
  register(root);
  return root;
}

describe('curricula simulate', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints JSON and writes the SVG and JSON to --out', async () => {
    const out = mkdtempSync(join(tmpdir(), 'simulate-'));
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => printed.push(line));
    await program().parseAsync(
      [
        'simulate',
        '--selectors',
        'uniform,sec',
        '--steps',
        '10',
        '--seeds',
        '2',
        '--batch-size',
        '4',
        '--json',
        '--out',
        out,
      ],
      { from: 'user' },
    );
    const result = JSON.parse(printed.join('\n'));
    expect(result.results.map((entry: { label: string }) => entry.label)).toEqual(['uniform', 'sec']);
    expect(result.batchSize).toBe(4);
    expect(readFileSync(join(out, 'simulation.svg'), 'utf8')).toContain('<svg');
    expect(JSON.parse(readFileSync(join(out, 'simulation.json'), 'utf8')).steps).toBe(10);
  });

  it('rejects unknown selector and learner names, listing the valid ones', async () => {
    await expect(
      program().parseAsync(['simulate', '--selectors', 'sec,nope'], { from: 'user' }),
    ).rejects.toThrow(/unknown selector 'nope'; known: adarft, alp-gmm/);
    await expect(program().parseAsync(['simulate', '--learner', 'robot'], { from: 'user' })).rejects.toThrow(
      UserError,
    );
  });
});
