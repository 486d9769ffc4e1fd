import { describe, expect, it } from 'vitest';
import { UnknownNameError } from './errors.ts';
import { definePlugin } from './plugin.ts';
import { Registry } from './registry.ts';

describe('Registry', () => {
  it('returns entries and lists known names on an unknown one', () => {
    const registry = new Registry<number>('task').register('b', 2).register('a', 1);
    expect(registry.get('a')).toBe(1);
    expect(() => registry.get('c')).toThrow(UnknownNameError);
    expect(() => registry.get('c')).toThrow("unknown task 'c'; known: a, b");
    expect(() => registry.register('a', 3)).toThrow('already registered');
  });
});

describe('Registry: filled on first use', () => {
  it('runs its fill once, before the first read or write, so built-ins come first', () => {
    let fills = 0;
    const registry = new Registry<number>('selector', (self) => {
      fills++;
      self.register('built', 1);
    });
    expect(fills).toBe(0);
    expect(() => registry.register('built', 2, 'a script')).toThrow(
      "selector 'built' is already registered (built-in); cannot register it again (a script)",
    );
    expect(registry.names()).toEqual(['built']);
    expect(fills).toBe(1);
  });

  it('keeps the plug-in fields of an added plug-in', () => {
    const plugin = definePlugin('selector', {
      id: 'p',
      description: 'a plug-in for this test',
      paper: 'A Paper Title',
      create: 7,
    });
    const registry = new Registry<number>('selector').add(plugin);
    expect(registry.get('p')).toBe(7);
    expect(registry.info('p')).toMatchObject({
      kind: 'selector',
      id: 'p',
      paper: { title: 'A Paper Title' },
    });
    expect(() => definePlugin('selector', { id: ' p', description: 'x', create: 1 })).toThrow(
      'selector id must be a non-empty string without surrounding spaces',
    );
  });
});
