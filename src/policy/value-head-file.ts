// The value head's files beside a value model's trunk checkpoint (src/policy/value-model.ts):
// `value-head.safetensors` (the head and its Adam moments m./v.) and `value-head.json` {formatVersion, step}.
// Read with a CheckpointError naming the file on anything malformed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '../core/errors.ts';
import { decodeSafetensors } from './safetensors.ts';

export const valueHeadFile = 'value-head.safetensors';
export const valueHeadStateFile = 'value-head.json';
export const headWeight = 'value_head.weight';
export const headBias = 'value_head.bias';
export const headFormatVersion = 1;

/** The head and its Adam moments from `dir`; CheckpointError naming the file on anything malformed. */
export function readHead(
  dir: string,
  d: number,
): {
  head: { weight: Float32Array; bias: Float32Array };
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
  step: number;
} {
  const fail = (file: string, problem: string): never => {
    throw new CheckpointError(`critic checkpoint ${join(dir, file)}: ${problem}`);
  };
  let contents: ReturnType<typeof decodeSafetensors>;
  try {
    contents = decodeSafetensors(readFileSync(join(dir, valueHeadFile)));
  } catch (error) {
    return fail(valueHeadFile, (error as Error).message);
  }
  const tensor = (name: string, size: number): Float32Array => {
    const found = contents.tensors.get(name);
    if (!found) return fail(valueHeadFile, `no tensor '${name}'`);
    if (found.data.length !== size)
      return fail(valueHeadFile, `'${name}' has ${found.data.length} values, expected ${size}`);
    if (found.data.some((value) => !Number.isFinite(value)))
      return fail(valueHeadFile, `'${name}' is not finite`);
    return found.data;
  };
  let state: { formatVersion?: unknown; step?: unknown };
  try {
    state = JSON.parse(readFileSync(join(dir, valueHeadStateFile), 'utf8'));
  } catch (error) {
    return fail(valueHeadStateFile, (error as Error).message);
  }
  if (state?.formatVersion !== headFormatVersion)
    fail(valueHeadStateFile, `unsupported format version ${JSON.stringify(state?.formatVersion)}`);
  const step = state.step;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) {
    return fail(valueHeadStateFile, `step ${JSON.stringify(step)} is not a non-negative integer`);
  }
  const sizes: [string, number][] = [
    [headWeight, d],
    [headBias, 1],
  ];
  return {
    head: { weight: tensor(headWeight, d), bias: tensor(headBias, 1) },
    m: new Map(sizes.map(([name, size]) => [name, tensor(`m.${name}`, size)])),
    v: new Map(sizes.map(([name, size]) => [name, tensor(`v.${name}`, size)])),
    step,
  };
}
