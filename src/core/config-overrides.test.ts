import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from './config.ts';
import { applyOverrides, collectOverride, parseOverride } from './config-overrides.ts';
import { ConfigError } from './errors.ts';

describe('config overrides (--set path=value)', () => {
  const raw = {
    name: 'demo',
    selector: { name: 'uniform' },
    tasks: [{ task: 'addition', difficulties: [3, 4] }],
  };

  it('parses values as YAML and sets nested keys, list items and new maps', () => {
    const overrides = [
      'selector.name=sec',
      'selector.options.temperature=0.5',
      'tasks.0.difficulties=[1, 2, 3, 4]',
      'train.steps=40',
      'rollout.topP=1',
      'eval.enabled=false',
    ].reduce((all, text) => collectOverride(text, all), [] as ReturnType<typeof collectOverride>);
    expect(applyOverrides(raw, overrides)).toEqual({
      name: 'demo',
      selector: { name: 'sec', options: { temperature: 0.5 } },
      tasks: [{ task: 'addition', difficulties: [1, 2, 3, 4] }],
      train: { steps: 40 },
      rollout: { topP: 1 },
      eval: { enabled: false },
    });
    expect(raw.selector.name).toBe('uniform'); // the input is not modified
  });

  it('appends to a list at index = length and keeps string values as strings', () => {
    const result = applyOverrides(raw, [
      parseOverride('tasks.1={task: countdown, difficulties: [1]}'),
      parseOverride('name=run-2'),
    ]) as typeof raw;
    expect(result.tasks[1]).toEqual({ task: 'countdown', difficulties: [1] });
    expect(result.name).toBe('run-2');
  });

  it('rejects malformed overrides with a message that names them', () => {
    expect(() => parseOverride('selector.name')).toThrow(ConfigError);
    expect(() => parseOverride('=3')).toThrow('expected path=value');
    expect(() => parseOverride('a..b=3')).toThrow("bad key path 'a..b'");
    expect(() => parseOverride('seed=[1, 2')).toThrow('not valid YAML');
    expect(() => applyOverrides(raw, [parseOverride('tasks.5.task=x')])).toThrow(
      "'tasks.5' needs an index 0..1 into a list of 1",
    );
    expect(() => applyOverrides(raw, [parseOverride('name.first=x')])).toThrow(
      "'name' is a value, not a map or list",
    );
  });

  it('leaves validation to the schema, so a misspelt key is reported like one in the file', () => {
    const schema = z.strictObject({
      seed: z.number().default(0),
      train: z.strictObject({ steps: z.number() }),
    });
    const value = applyOverrides({ train: { steps: 1 } }, [parseOverride('train.stpes=3')]);
    expect(() => parseConfig(schema, value, 'x.yaml (with command-line overrides)')).toThrow(
      "unknown key 'stpes' at train; allowed: steps",
    );
    const typed = applyOverrides({ train: { steps: 1 } }, [parseOverride('seed=abc')]);
    expect(() => parseConfig(schema, typed, 'x.yaml')).toThrow(/seed: .*expected number/);
  });
});
