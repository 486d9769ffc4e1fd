// Probe of a writer cold start (experiments/self-play/README.md): 40 generator prompts of three addition
// examples drawn at the given levels, sampled once each at T = 1 (64 tokens, seed 3); prints the first 8
// prompts with their continuations and how many first lines parse as addition problems.
//   node --import tsx experiments/self-play/probe-writer.ts MODEL_DIR LEVELS   (e.g. 1,2,3,4,5,6,7,8 or 4)
import { loadEmbeddedPolicy } from '../../src/policy/parallel-factory.ts';
import { Rng } from '../../src/core/rng.ts';
import { addition } from '../../src/tasks/addition.ts';
import { promptTokens } from '../../src/tasks/format.ts';
const model = process.argv[2];
const levels = process.argv[3].split(',').map(Number);
const policy = await loadEmbeddedPolicy(model, 1);
const rng = new Rng(1);
const prompts: string[] = [];
for (let i = 0; i < 40; i++) {
  prompts.push(Array.from({ length: 3 }, () => addition.generate(rng, levels[rng.int(0, levels.length - 1)]).prompt).join(''));
}
const tokens = prompts.map((text) => promptTokens(policy.tokenizer, { ...addition.generate(rng, 1), prompt: text }));
const out = await policy.sample(tokens, { n: 1, temperature: 1, topP: 1, maxTokens: 64, seed: 3 });
let ok = 0;
out.forEach((seqs, i) => {
  const line = seqs[0].text.split('\n')[0];
  const parsed = addition.parseProblem!(line);
  if (parsed.ok) ok++;
  if (i < 8) console.log(JSON.stringify(prompts[i]), '→', JSON.stringify(seqs[0].text.slice(0, 40)));
});
console.log('parseable', ok, 'of', prompts.length);
await policy.close?.();
