// createDefaultRegistries: fresh, independent instances holding every built-in with its plug-in fields,
// so a script that starts over (watch mode, hot reload) can register a name again.
import { describe, expect, it } from 'vitest';
import { uniformSelector } from '../curricula/uniform.ts';
import { createDefaultRegistries, defaultRegistries, registeredPlugins } from './registries.ts';

describe('createDefaultRegistries', () => {
  it('holds every built-in, each with its plug-in fields', () => {
    const registries = createDefaultRegistries();
    const counts = Object.fromEntries(
      Object.entries(registries).map(([key, registry]) => [key, registry.names().length]),
    );
    expect(counts).toEqual({
      tasks: 15,
      rewards: 22,
      selectors: 13,
      guidances: 8,
      advantages: 10,
      losses: 13,
      policyBackends: 2,
    });
    const plugins = registeredPlugins(registries);
    expect(plugins).toHaveLength(83);
    for (const plugin of plugins) expect(plugin.description.length, plugin.id).toBeGreaterThan(10);
    expect(registries.selectors.info('uniform')).toBe(uniformSelector);
  });

  it('builds independent instances: a name registered in one can be registered again in a fresh one', () => {
    const first = createDefaultRegistries();
    first.selectors.register('mine', uniformSelector.create, 'a script');
    expect(() => first.selectors.register('mine', uniformSelector.create, 'again')).toThrow(
      "selector 'mine' is already registered (a script)",
    );
    const second = createDefaultRegistries();
    expect(second.selectors.has('mine')).toBe(false);
    second.selectors.register('mine', uniformSelector.create, 'a script');
    expect(defaultRegistries().selectors.has('mine')).toBe(false);
  });

  it('a composite reward resolves its parts in the registry it was created from', () => {
    const registries = createDefaultRegistries();
    registries.rewards.register('always-half', () => ({
      name: 'always-half',
      score: async (inputs) => inputs.map(() => ({ reward: 0.5, components: {} })),
    }));
    const composite = registries.rewards.get('composite')({ parts: [{ name: 'always-half' }] });
    expect(composite.name).toBe('composite');
    expect(() => defaultRegistries().rewards.get('composite')({ parts: [{ name: 'always-half' }] })).toThrow(
      "unknown reward 'always-half'",
    );
  });
});
