// Watch mode and hot reload: a module that registers plug-ins runs again in the same process (imported
// again as `<file>?t=…`, as hot reloaders do, here with a line added above the calls), and its
// registrations replace its own earlier ones instead of failing as taken names; a registration of the
// same name from another file still fails naming both, and a built-in name cannot be taken either way.
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
  it('replaces its entries (hot reload, watch mode); another file cannot take the names', async () => {
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
});
