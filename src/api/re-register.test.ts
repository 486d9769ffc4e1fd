// Hot reload: a module that registers plug-ins runs again in the same process (imported again as
// `<file>?t=…`, as hot reloaders do, here with lines added above the calls), and its registrations replace
// its own earlier ones instead of failing as taken names; so does the same call made again. A registration
// of the same name from another file, or from another line of the same module in the same run, still
// fails naming both, and a built-in name cannot be taken either way.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createUniform } from '../curricula/uniform.ts';
import { defaultRegistries } from '../training/registries.ts';
import { registerSelector } from './register.ts';

const index = pathToFileURL(join(import.meta.dirname, '../index.ts')).href;
const curriculaModule = pathToFileURL(join(import.meta.dirname, '../curricula/define.ts')).href;

/** A user's plug-in module: registers 'hot-selector' (registerSelector) and 'hot-plugin' (registerPlugin). */
function pluginModule(version: number, blankLines: number): string {
  return `${'\n'.repeat(blankLines)}import { registerPlugin, registerSelector } from ${JSON.stringify(index)};
import { defineSelector } from ${JSON.stringify(curriculaModule)};
import { z } from 'zod';
export const version = ${version};
export const factory = () => { throw new Error('unused (version ${version})'); };
registerSelector('hot-selector', factory);
registerPlugin(defineSelector({
  id: 'hot-plugin',
  description: 'version ${version} of a selector under hot reload',
  optionsSchema: z.strictObject({}),
  create: factory,
}));
`;
}

describe('registering again from the same module', () => {
  it('replaces its entries when the module is imported again (hot reload); another file cannot take the names', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 're-register-')), 'plugins.mjs');
    const url = pathToFileURL(file).href;
    writeFileSync(file, pluginModule(1, 0));
    const first = (await import(`${url}?t=1`)) as { factory: unknown };
    const { selectors } = defaultRegistries();
    expect(selectors.get('hot-selector')).toBe(first.factory);

    writeFileSync(file, pluginModule(2, 3));
    const second = (await import(`${url}?t=2`)) as { factory: unknown };
    expect(second.factory).not.toBe(first.factory);
    expect(selectors.get('hot-selector')).toBe(second.factory);
    expect(selectors.get('hot-plugin')).toBe(second.factory);
    expect(selectors.info('hot-plugin')?.description).toBe('version 2 of a selector under hot reload');
    expect(selectors.origin('hot-selector')).toMatch(/^registered at .*plugins\.mjs\?t=2:9:1$/);

    expect(() => registerSelector('hot-selector', createUniform)).toThrow(
      /^selector 'hot-selector' is already registered \(registered at .*plugins\.mjs\?t=2:9:1\); cannot register it again \(registered at .*re-register\.test\.ts:\d+:\d+\)/,
    );
    expect(() => registerSelector('uniform', createUniform)).toThrow(
      "selector 'uniform' is already registered (built-in)",
    );
  });

  it('the same call again replaces; a second call in the same run of a module fails', async () => {
    const registerOnce = (factory: typeof createUniform) => registerSelector('same-call', factory);
    const other: typeof createUniform = (...args) => createUniform(...args);
    registerOnce(createUniform);
    registerOnce(other);
    expect(defaultRegistries().selectors.get('same-call')).toBe(other);

    const file = join(mkdtempSync(join(tmpdir(), 're-register-twice-')), 'twice.mjs');
    writeFileSync(
      file,
      `import { registerSelector } from ${JSON.stringify(index)};
const factory = () => { throw new Error('unused'); };
registerSelector('twice-in-one-run', factory);
registerSelector('twice-in-one-run', factory);
`,
    );
    await expect(import(`${pathToFileURL(file).href}?t=1`)).rejects.toThrow(
      /^selector 'twice-in-one-run' is already registered \(registered at .*twice\.mjs\?t=1:3:1\); cannot register it again \(registered at .*twice\.mjs\?t=1:4:1\)/,
    );
  });
});
