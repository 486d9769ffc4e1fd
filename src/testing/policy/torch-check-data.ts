// Writes the data for bench/torch_load_check.py: a checkpoint (a fresh small model, unless the directory
// already holds one) and the log-probs the TypeScript model gives a few fixed sequences, so the PyTorch
// script can load model.safetensors, recompute them and compare.
//
// Usage: npx tsx src/testing/policy/torch-check-data.ts <checkpoint-dir> <expected.json>
import { existsSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Rng } from '../../core/rng.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';

export interface TorchCheckData {
  sequences: number[][];
  logprobs: number[][];
  /** Texts and their ids under the checkpoint's tokenizer, for the script's tokenizer.json check. */
  texts: string[];
  textIds: number[][];
}

const checkTexts = ['12+30=42\n7+8=15\n', 'a b\nc'];

/** Loads (or creates and saves) the checkpoint at `dir` and scores a few deterministic sequences. */
export async function torchCheckData(dir: string, seed = 1): Promise<TorchCheckData> {
  let backend: EmbeddedBackend;
  if (existsSync(dir)) {
    backend = await EmbeddedBackend.load(dir);
  } else {
    const tokenizer = new CharTokenizer([...'abcdefghijklmnopqrstuvwxyz0123456789 +-=\n']);
    const config = { vocabSize: tokenizer.vocabSize, dModel: 32, layers: 2, heads: 4, contextLength: 24 };
    backend = await EmbeddedBackend.create(config, tokenizer, seed);
    // One training step so that biases and LayerNorm weights are no longer 0 and 1.
    const tokens = tokenizer.encode('12+30=42\n7+8=15\n');
    await backend.forwardBackward([{ tokens, weights: tokens.slice(1).map(() => 1) }], 'cross_entropy');
    await backend.optimStep({ learningRate: 0.05 });
    await backend.save(dir);
  }
  const rng = new Rng(seed + 1);
  const { vocabSize, contextLength } = backend.model.config;
  const sequences = [2, 7, contextLength].map((length) =>
    Array.from({ length }, () => rng.int(0, vocabSize - 1)),
  );
  const logprobs = await backend.forward(sequences);
  const textIds = checkTexts.map((text) => backend.tokenizer.encode(text));
  backend.dispose();
  return { sequences, logprobs, texts: checkTexts, textIds };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, out] = process.argv.slice(2);
  if (!dir || !out) {
    console.error('usage: npx tsx src/testing/policy/torch-check-data.ts <checkpoint-dir> <expected.json>');
    process.exit(2);
  }
  writeFileSync(out, `${JSON.stringify(await torchCheckData(dir))}\n`);
  console.log(`wrote ${out} (checkpoint ${dir})`);
}
