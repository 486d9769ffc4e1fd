// The train config is composed from the run components' blocks: each block sits in rlConfigSchema where
// config-blocks.ts places it (the same schema object), and every block belongs to one component.
import { describe, expect, it } from 'vitest';
import { rlConfigSchema } from '../rl/config.ts';
import { blockPaths, blockSchema, componentBlocks, defaultsOf } from './config-blocks.ts';
import { rlComponents } from './index.ts';

/** The schema at a dotted path of an object schema (through .default()/.optional() wrappers). */
function schemaAt(path: string): unknown {
  let node: unknown = rlConfigSchema;
  for (const key of path.split('.')) {
    let object = node as { shape?: Record<string, unknown>; unwrap?: () => unknown };
    while (object.shape === undefined && object.unwrap !== undefined)
      object = object.unwrap() as typeof object;
    node = object.shape?.[key];
  }
  return node;
}

describe('config blocks of the run components', () => {
  it('each block is in the train config where config-blocks.ts places it', () => {
    expect(blockPaths().sort()).toEqual([
      'algorithm.critic',
      'algorithm.relift',
      'algorithm.remix',
      'algorithm.tokenRewardModel',
      'rollout.budget',
      'rollout.environment',
      'selfPlay',
      'tango',
      'teacher',
    ]);
    for (const path of blockPaths()) expect(schemaAt(path), path).toBe(blockSchema(path));
  });

  it('every block belongs to a component, and every named block exists', () => {
    const named = rlComponents.flatMap((component) => (component.block ? [component.block] : []));
    expect(named.sort()).toEqual(blockPaths().sort());
  });

  it("a parent left out gets its blocks' defaults", () => {
    const config = rlConfigSchema.parse({
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 1, learningRate: 1e-3 },
    });
    expect(config.rollout.budget).toEqual(defaultsOf(componentBlocks.rollout).budget);
    expect(config.algorithm.relift).toEqual(defaultsOf(componentBlocks.algorithm).relift);
    expect(config.rollout.budget.enabled).toBe(false);
  });
});
