// The JSON Schemas in schemas/ are the ones `curricula schema` generates from the zod schemas now (a
// stale copy fails here: regenerate with `curricula schema`), and every example config names the right
// one in its yaml-language-server modeline and validates against it — with the JSON Schema (ajv, draft
// 2020-12, as an editor checks it) and with the zod schema the CLI loads it with.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { main } from '../cli/main.ts';
import { loadConfigFile } from '../core/config.ts';
import { type ConfigKind, configJsonSchema, configJsonSchemaFiles, configSchemas } from './json-schemas.ts';

// ajv is CommonJS: under NodeNext its class is the default export's `default`.
const Ajv2020 = Ajv2020Module.default;
const root = new URL('../../', import.meta.url).pathname;
const examples = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.yaml'));
const modeline = /^# yaml-language-server: \$schema=\.\.\/schemas\/([a-z-]+)\.schema\.json$/;

/** The kind an example is meant for, from its name (the modeline must agree). */
function expectedKind(name: string): ConfigKind {
  if (name.includes('pretrain')) return 'pretrain';
  if (name.includes('train-rm')) return 'train-rm';
  if (name === 'ladder-distill.yaml') return 'distill';
  if (name === 'ladder-teach.yaml') return 'teach';
  return 'train';
}

describe('schemas/', () => {
  it('holds exactly what `curricula schema` generates now', async () => {
    const out = mkdtempSync(join(tmpdir(), 'schemas-'));
    vi.spyOn(console, 'log').mockImplementation(() => {});
    await main(['node', 'curricula', 'schema', '--out', out]);
    vi.restoreAllMocks();
    const generated = readdirSync(out).sort();
    expect(readdirSync(join(root, 'schemas')).sort()).toEqual(generated);
    for (const file of generated) {
      expect(
        readFileSync(join(root, 'schemas', file), 'utf8'),
        `${file} is stale: run curricula schema`,
      ).toBe(readFileSync(join(out, file), 'utf8'));
    }
    expect(
      configJsonSchemaFiles()
        .map((file) => file.file)
        .sort(),
    ).toEqual(generated);
  });

  it('the train schema describes defaults as optional input and refuses unknown keys', () => {
    const schema = configJsonSchema('train') as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { default?: unknown }>;
    };
    expect(schema.required).toEqual(['tasks', 'train']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.poolSize.default).toBe(2000);
  });
});

describe.each(examples)('examples/%s', (name) => {
  it('carries the modeline of its kind and validates against that schema (JSON Schema and zod)', () => {
    const text = readFileSync(join(root, 'examples', name), 'utf8');
    const kind = modeline.exec(text.split('\n')[0])?.[1];
    expect(kind, 'first line: # yaml-language-server: $schema=../schemas/<kind>.schema.json').toBe(
      expectedKind(name),
    );
    const schema = JSON.parse(readFileSync(join(root, 'schemas', `${kind}.schema.json`), 'utf8'));
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    const valid = validate(parseYaml(text));
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
    expect(() =>
      loadConfigFile(configSchemas[kind as ConfigKind].schema, join(root, 'examples', name)),
    ).not.toThrow();
  });
});

describe('the JSON Schema catches what the loader catches', () => {
  it('an unknown key and a wrong type fail both', () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(configJsonSchema('train'));
    const config = {
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 'ten', learningRate: 1e-4 },
      bogus: 1,
    };
    expect(validate(config)).toBe(false);
    expect(
      validate.errors?.map(
        (error: { instancePath: string; params: unknown }) => error.instancePath || error.params,
      ),
    ).toEqual(expect.arrayContaining(['/train/steps', { additionalProperty: 'bogus' }]));
  });
});
