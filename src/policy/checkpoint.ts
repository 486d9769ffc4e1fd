// Checkpoint directories of the embedded policy (format: docs/checkpoint-format.md):
//
//   model.safetensors       weights, GPT-2 names, [in, out] layout, canonical order
//   config.json             {format, formatVersion, model: ModelConfig}
//   tokenizer.json          the tokenizer's toJSON() (for CharTokenizer a Hugging Face tokenizer.json)
//   tokenizer_config.json   optional: the tokenizer's tokenizerConfig() (names BOS/EOS/PAD for HF tools)
//   optimizer.safetensors   Adam moments 'm.<param>' and 'v.<param>'
//   optimizer.json          {formatVersion, step}
//
// Writes are atomic: everything goes to a temporary sibling directory, each file and the directory are
// fsynced, then one rename puts it in place, so a crash leaves either the old checkpoint or the new one.
// Reads validate every file (including that every weight and Adam moment is finite) and raise
// CheckpointError with one line naming the file and the problem.
// A directory with neither optimizer file is a weights-only checkpoint (e.g. exported from PyTorch);
// having exactly one of the two is an error.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fsyncDirectory, writeFileDurably } from '../core/durable-files.ts';
import { CheckpointError } from '../core/errors.ts';
import { type ModelConfig, parameterSpecs } from './model.ts';
import { parseModelConfig } from './model-config.ts';
import type { AdamState } from './optimizer.ts';
import { decodeSafetensors, encodeSafetensors, type NamedTensor } from './safetensors.ts';

export const checkpointFormat = 'curricula-embedded-policy';
export const checkpointFormatVersion = 1;

export const checkpointFiles = {
  weights: 'model.safetensors',
  config: 'config.json',
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
  optimizerTensors: 'optimizer.safetensors',
  optimizerState: 'optimizer.json',
} as const;

export interface CheckpointContents {
  config: ModelConfig;
  /** Parameter values by name (canonical order). */
  weights: Map<string, Float32Array>;
  /** The tokenizer's JSON form (what its toJSON() returned). */
  tokenizer: unknown;
  /** tokenizer_config.json (written only when given; read back when present, else undefined). */
  tokenizerConfig?: unknown;
  /** Adam state, or null for a weights-only checkpoint. */
  optimizer: AdamState | null;
}

let temporaryCounter = 0;

/** Writes a checkpoint directory atomically, replacing `dir` if it exists. */
export function writeCheckpoint(dir: string, contents: CheckpointContents): void {
  const target = resolve(dir);
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  const stamp = `${process.pid}-${Date.now()}-${temporaryCounter++}`;
  const temporary = join(parent, `.${basename(target)}.tmp-${stamp}`);
  mkdirSync(temporary);
  try {
    const specs = parameterSpecs(contents.config);
    const weights = new Map<string, NamedTensor>();
    for (const spec of specs) {
      const data = contents.weights.get(spec.name);
      if (!data)
        throw new CheckpointError(`cannot save checkpoint ${dir}: no value for parameter '${spec.name}'`);
      // A diverged model is never saved: LATEST keeps pointing at the last finite checkpoint.
      const bad = nonFinite(data);
      if (bad)
        throw new CheckpointError(
          `cannot save checkpoint ${dir}: parameter '${spec.name}' ${bad}; training diverged, and the previous checkpoint is kept — lower the learning rate or resume from it`,
        );
      weights.set(spec.name, { shape: spec.shape, data });
    }
    const metadata = { format: checkpointFormat, formatVersion: String(checkpointFormatVersion) };
    writeFileDurably(join(temporary, checkpointFiles.weights), encodeSafetensors(weights, metadata));
    const configJson = {
      format: checkpointFormat,
      formatVersion: checkpointFormatVersion,
      model: contents.config,
    };
    writeFileDurably(join(temporary, checkpointFiles.config), `${JSON.stringify(configJson, null, 2)}\n`);
    writeFileDurably(join(temporary, checkpointFiles.tokenizer), `${JSON.stringify(contents.tokenizer)}\n`);
    if (contents.tokenizerConfig !== undefined) {
      writeFileDurably(
        join(temporary, checkpointFiles.tokenizerConfig),
        `${JSON.stringify(contents.tokenizerConfig, null, 2)}\n`,
      );
    }
    if (contents.optimizer) {
      const moments = new Map<string, NamedTensor>();
      for (const spec of specs) {
        const m = contents.optimizer.m.get(spec.name);
        const v = contents.optimizer.v.get(spec.name);
        if (!m || !v)
          throw new CheckpointError(`cannot save checkpoint ${dir}: no Adam state for '${spec.name}'`);
        moments.set(`m.${spec.name}`, { shape: spec.shape, data: m });
        moments.set(`v.${spec.name}`, { shape: spec.shape, data: v });
      }
      writeFileDurably(
        join(temporary, checkpointFiles.optimizerTensors),
        encodeSafetensors(moments, metadata),
      );
      const state = { formatVersion: checkpointFormatVersion, step: contents.optimizer.step };
      writeFileDurably(join(temporary, checkpointFiles.optimizerState), `${JSON.stringify(state)}\n`);
    }
    fsyncDirectory(temporary);
    if (existsSync(target)) {
      // A directory cannot be renamed over a non-empty one: move the old one aside first.
      const old = join(parent, `.${basename(target)}.old-${stamp}`);
      renameSync(target, old);
      renameSync(temporary, target);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(temporary, target);
    }
    fsyncDirectory(parent);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
}

/** Reads and validates a checkpoint directory. */
export function readCheckpoint(dir: string): CheckpointContents {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CheckpointError(`checkpoint directory ${dir} does not exist`);
  }
  const configJson = readJson(dir, checkpointFiles.config) as Record<string, unknown>;
  if (typeof configJson !== 'object' || configJson === null || configJson.format !== checkpointFormat) {
    fail(
      dir,
      checkpointFiles.config,
      `not a ${checkpointFormat} config (format field is ${JSON.stringify(configJson?.format)})`,
    );
  }
  if (configJson.formatVersion !== checkpointFormatVersion) {
    fail(
      dir,
      checkpointFiles.config,
      `format version ${configJson.formatVersion}, this build reads ${checkpointFormatVersion}`,
    );
  }
  let config: ModelConfig;
  try {
    config = parseModelConfig(configJson.model);
  } catch (error) {
    fail(dir, checkpointFiles.config, (error as Error).message);
  }
  const expected = new Map(parameterSpecs(config).map((spec) => [spec.name, spec.shape]));
  const weightTensors = readTensors(dir, checkpointFiles.weights, expected);
  const weights = new Map<string, Float32Array>();
  for (const name of expected.keys()) weights.set(name, weightTensors.get(name)!.data);

  const tokenizer = readJson(dir, checkpointFiles.tokenizer);
  const tokenizerConfig = existsSync(join(dir, checkpointFiles.tokenizerConfig))
    ? readJson(dir, checkpointFiles.tokenizerConfig)
    : undefined;

  const hasTensors = existsSync(join(dir, checkpointFiles.optimizerTensors));
  const hasState = existsSync(join(dir, checkpointFiles.optimizerState));
  let optimizer: AdamState | null = null;
  if (hasTensors !== hasState) {
    const missing = hasTensors ? checkpointFiles.optimizerState : checkpointFiles.optimizerTensors;
    fail(dir, missing, 'missing file (the other optimizer file is present)');
  }
  if (hasTensors && hasState) {
    const state = readJson(dir, checkpointFiles.optimizerState) as Record<string, unknown>;
    if (typeof state !== 'object' || state === null || state.formatVersion !== checkpointFormatVersion) {
      fail(
        dir,
        checkpointFiles.optimizerState,
        `unsupported format version ${JSON.stringify(state?.formatVersion)}`,
      );
    }
    const step = state.step;
    if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) {
      fail(dir, checkpointFiles.optimizerState, `step ${JSON.stringify(step)} is not a non-negative integer`);
    }
    const momentShapes = new Map<string, number[]>();
    for (const [name, shape] of expected) {
      momentShapes.set(`m.${name}`, shape);
      momentShapes.set(`v.${name}`, shape);
    }
    const moments = readTensors(dir, checkpointFiles.optimizerTensors, momentShapes);
    const m = new Map<string, Float32Array>();
    const v = new Map<string, Float32Array>();
    for (const name of expected.keys()) {
      m.set(name, moments.get(`m.${name}`)!.data);
      v.set(name, moments.get(`v.${name}`)!.data);
    }
    optimizer = { step, m, v };
  }
  return { config, weights, tokenizer, tokenizerConfig, optimizer };
}

/** Decodes a safetensors file and checks it holds exactly the expected names with the expected shapes. */
function readTensors(
  dir: string,
  file: string,
  expected: ReadonlyMap<string, number[]>,
): Map<string, NamedTensor> {
  const bytes = readBytes(dir, file);
  let tensors: Map<string, NamedTensor>;
  try {
    tensors = decodeSafetensors(bytes).tensors;
  } catch (error) {
    fail(dir, file, (error as Error).message);
  }
  for (const [name, shape] of expected) {
    const tensor = tensors.get(name);
    if (!tensor) fail(dir, file, `missing tensor '${name}'`);
    if (tensor.shape.length !== shape.length || tensor.shape.some((n, i) => n !== shape[i])) {
      fail(dir, file, `tensor '${name}' has shape [${tensor.shape}], the config needs [${shape}]`);
    }
  }
  const unexpected = [...tensors.keys()].filter((name) => !expected.has(name));
  if (unexpected.length > 0)
    fail(dir, file, `unexpected tensor(s) ${unexpected.map((n) => `'${n}'`).join(', ')}`);
  for (const [name, tensor] of tensors) checkFinite(dir, file, name, tensor.data);
  return tensors;
}

/**
 * A NaN or ±Inf value (a diverged run) would make every log-prob NaN: evaluation would report 0 and
 * training would fail at its first step. Refused at load, naming the tensor.
 */
function checkFinite(dir: string, file: string, name: string, data: Float32Array): void {
  const bad = nonFinite(data);
  if (bad) fail(dir, file, `tensor '${name}' ${bad}; the run diverged — use an earlier checkpoint`);
}

/** "holds N non-finite value(s) (first: NaN at flat index i)", or null when every value is finite. */
function nonFinite(data: Float32Array): string | null {
  let first = -1;
  let count = 0;
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      if (first < 0) first = i;
      count++;
    }
  }
  if (first < 0) return null;
  return `holds ${count} non-finite value${count > 1 ? 's' : ''} (first: ${data[first]} at flat index ${first})`;
}

function readBytes(dir: string, file: string): Uint8Array {
  const path = join(dir, file);
  if (!existsSync(path)) fail(dir, file, 'missing file');
  try {
    return readFileSync(path);
  } catch (error) {
    fail(dir, file, `cannot read (${(error as Error).message})`);
  }
}

function readJson(dir: string, file: string): unknown {
  const text = Buffer.from(readBytes(dir, file)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    fail(dir, file, `invalid JSON (${(error as Error).message})`);
  }
}

function fail(dir: string, file: string, problem: string): never {
  throw new CheckpointError(`checkpoint ${join(dir, file)}: ${problem}`);
}
