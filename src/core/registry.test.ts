import { describe, expect, it } from 'vitest';
import { UnknownNameError } from './errors.ts';
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
