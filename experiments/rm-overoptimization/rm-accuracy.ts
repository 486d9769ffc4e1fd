// Issue 31 item 8 (ii): both reward models scored on one held-out set — the held-out pairs of the full
// pair file (10% of prompts by hash, as train-rm splits them; none of them trained either model) — so their
// accuracies compare (rm-150's own held-out set has 13 pairs). Writes results/rm-accuracy.json.
//   node --import tsx experiments/rm-overoptimization/rm-accuracy.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEmbeddedPolicy } from '../../src/policy/parallel-factory.ts';
import { headInput, headScores } from '../../src/rewards/reward-model/head.ts';
import { isHeldOut, readPairs } from '../../src/training/reward-model/pairs.ts';

const E = 'experiments/rm-overoptimization';
const pairs = readPairs(join(E, 'raw/pairs.jsonl')).filter((pair) => isHeldOut(pair.prompt, 0.1));
const result: Record<string, unknown> = { heldOutPairs: pairs.length };
for (const name of ['rm-full', 'rm-150']) {
  const model = await loadEmbeddedPolicy(join(E, `runs/rm-overopt-${name}/model`), 1);
  const encode = (completion: string, prompt: string) =>
    headInput(model.tokenizer, model.contextLength, prompt, completion) as number[];
  const chosen = await headScores(model, pairs.map((pair) => encode(pair.chosen, pair.prompt)));
  const rejected = await headScores(model, pairs.map((pair) => encode(pair.rejected, pair.prompt)));
  const right = chosen.filter((score, i) => score > rejected[i]).length;
  result[name] = { accuracy: right / pairs.length, right };
  await model.close?.();
}
mkdirSync(join(E, 'results'), { recursive: true });
writeFileSync(join(E, 'results/rm-accuracy.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result));
