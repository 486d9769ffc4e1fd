// Which kernels a run's steps ran on, in the run's events: the native OpenBLAS kernels and the wasm
// fallback round differently, so two runs of one config on different kernel sets differ in the last
// digits from the first step, and a resume on the other set is no longer bit-identical to an
// uninterrupted run. Each start and resume records a 'kernels' event; a resume whose kernels differ from
// the previous start's warns (the run goes on: the result is still a valid run, just not a replay).
import { nativeKernelStatus } from '../policy/native-kernels.ts';
import type { RunStore } from '../runs/run-store.ts';

interface KernelsDetail {
  native: boolean;
  reason: string;
}

/** Records this process's kernel set; warns when it differs from the one the run last ran on. */
export function recordKernels(store: RunStore, onWarning?: (message: string) => void): void {
  const status = nativeKernelStatus();
  const current: KernelsDetail = { native: status.active, reason: status.reason };
  const previous = store
    .events()
    .filter((event) => event.kind === 'kernels')
    .at(-1)?.detail as KernelsDetail | undefined;
  if (previous && previous.native !== current.native) {
    const name = (native: boolean) => (native ? 'native OpenBLAS' : 'wasm');
    (onWarning ?? ((message) => console.error(`warning: ${message}`)))(
      `this run ran on the ${name(previous.native)} kernels and resumes on the ${name(current.native)} kernels (${current.reason}): the steps from here are not bit-identical to an uninterrupted run`,
    );
  }
  store.event('kernels', current);
}
