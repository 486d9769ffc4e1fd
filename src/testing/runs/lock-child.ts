// Test fixture for lock.test.ts: one of many processes that open runs for writing at the same moment.
//
//   node --import tsx src/testing/runs/lock-child.ts <control dir> <child index> <run dir>...
//       trial t: wait (spinning) for <control>/go-<t>, RunStore.resume(run dir t), write
//       <control>/result-<t>-<index> ("held" or "refused <message>"), keep the run open until
//       <control>/done-<t> exists, close it, go on to trial t + 1.
//   node --import tsx src/testing/runs/lock-child.ts --hold <control dir> <run dir>...
//       opens every run for writing, writes <control>/holding, then waits to be killed (a holder that dies
//       with its locks taken).
//   node --import tsx src/testing/runs/lock-child.ts --create <control dir> <child index> <run dir>...
//       as the first form, but RunStore.create(run dir t) of a run that does not exist yet: "held" when
//       this process created it, "refused <message>" for a UserError, "error <message>" for anything else.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../core/errors.ts';
import { RunLockedError } from '../../runs/lock.ts';
import { RunStore } from '../../runs/run-store.ts';

const pause = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(pause, 0, 0, ms);

const args = process.argv.slice(2);
if (args[0] === '--hold') {
  const [, control, ...runDirs] = args;
  const stores = runDirs.map((dir) => RunStore.resume(dir));
  writeFileSync(join(control, 'holding'), String(stores.length));
  setInterval(() => {}, 60_000);
} else {
  const create = args[0] === '--create';
  const [control, index, ...runDirs] = create ? args.slice(1) : args;
  for (let trial = 0; trial < runDirs.length; trial++) {
    const go = join(control, `go-${trial}`);
    while (!existsSync(go)) {
      // Spin: every child leaves this loop within microseconds of the others.
    }
    let store: RunStore | null = null;
    let result: string;
    try {
      store = create ? RunStore.create(runDirs[trial], { creator: index }) : RunStore.resume(runDirs[trial]);
      result = 'held';
    } catch (error) {
      const refused = create ? error instanceof UserError : error instanceof RunLockedError;
      result = `${refused ? 'refused' : 'error'} ${(error as Error).message}`;
    }
    // Written aside and renamed, so the parent never reads a result half-written.
    const resultPath = join(control, `result-${trial}-${index}`);
    writeFileSync(`${resultPath}.tmp`, result);
    renameSync(`${resultPath}.tmp`, resultPath);
    while (!existsSync(join(control, `done-${trial}`))) sleep(2);
    store?.close();
  }
}
