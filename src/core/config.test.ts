import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfigFile, parseConfig } from './config.ts';
import { ConfigError } from './errors.ts';

const schema = z.strictObject({
  seed: z.number().int().default(0),
  model: z.strictObject({ dModel: z.number().int().positive(), layers: z.number().int() }).optional(),
  tasks: z.array(z.strictObject({ task: z.string(), weight: z.number().default(1) })).default([]),
});

describe('parseConfig', () => {
  it('applies defaults', () => {
    expect(parseConfig(schema, {}, 'x.yaml')).toEqual({ seed: 0, tasks: [] });
  });

  it('names the file, the key path and the allowed keys of unknown keys', () => {
    expect(() => parseConfig(schema, { model: { dModel: 8, layers: 2, heads: 4 } }, 'x.yaml')).toThrow(
      "x.yaml: unknown key 'heads' at model; allowed: dModel, layers",
    );
    expect(() => parseConfig(schema, { tasks: [{ task: 'a', wieght: 2 }] }, 'x.yaml')).toThrow(
      "unknown key 'wieght' at tasks.0; allowed: task, weight",
    );
    expect(() => parseConfig(schema, { sede: 1 }, 'x.yaml')).toThrow(
      "unknown key 'sede' at (top level); allowed: seed, model, tasks",
    );
  });

  it('reports wrong types with their path', () => {
    expect(() => parseConfig(schema, { seed: 'one' }, 'x.yaml')).toThrow(/x\.yaml: seed: .*expected number/);
  });
});

describe('loadConfigFile', () => {
  it('reads YAML and rejects broken YAML or missing files with ConfigError', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'ok.yaml'), 'seed: 3\ntasks:\n  - task: addition\n');
    expect(loadConfigFile(schema, join(dir, 'ok.yaml'))).toEqual({
      seed: 3,
      tasks: [{ task: 'addition', weight: 1 }],
    });
    writeFileSync(join(dir, 'bad.yaml'), 'seed: [1\n');
    expect(() => loadConfigFile(schema, join(dir, 'bad.yaml'))).toThrow(ConfigError);
    expect(() => loadConfigFile(schema, join(dir, 'missing.yaml'))).toThrow(/cannot read config .*ENOENT/);
  });
});
