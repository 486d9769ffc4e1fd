// Medians (and ranges) of the training-step and sampling tokens/s of run.sh's runs, per kernel set.
import { readFileSync } from 'node:fs';
const dir = new URL('.', import.meta.url);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const core of ['pin', 'auto']) {
  const runs = [1, 2, 3].map((i) => JSON.parse(readFileSync(new URL(`bench-${core}-${i}.json`, dir), 'utf8')));
  const found = (r) => JSON.stringify(r).match(/OpenBLAS 0[^"]*/)?.[0];
  const numbers = (r) => (JSON.stringify(r).match(/"tokensPerSecond":[0-9.]+/g) ?? []).map((s) => Number(s.split(':')[1]));
  const train = runs.map((r) => numbers(r)[0]);
  const sample = runs.map((r) => numbers(r)[1]);
  const show = (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  console.log(`${core === 'pin' ? 'Haswell (default)' : 'auto'}: ${found(runs[0])}; training step tok/s ${show(train)}; sampling tok/s ${show(sample)}`);
}
