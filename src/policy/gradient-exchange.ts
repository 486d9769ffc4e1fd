// The gradient all-reduce of the worker-parallel backend (parallel-backend.ts) over shared memory: the
// replicas sum their gradients among themselves, without the main thread in the data path.
//
// Every parameter's gradient has a fixed place in one flat float32 vector of P values. Each of the N
// replicas owns a slot (a SharedArrayBuffer of P floats) and a row of "present" flags (one per parameter:
// did this replica accumulate a gradient for it). One optimStep is:
//
//   1. every replica writes its gradients into its slot and its flags;            barrier
//   2. replica w sums the values [wP/N, (w+1)P/N) of all slots into the shared sum, in worker order
//      (slot 0 + slot 1 + …, each add rounded to float32, only the replicas whose flag is set): a
//      reduce-scatter;                                                               barrier
//   3. every replica reads the whole sum (views, no copy) and applies the same AdamW step.
//
// The sum is element for element the one the main thread used to form (replica-calls.ts sumGradients:
// first present replica, then += the others in worker order), so the step is unchanged and deterministic
// for a given N; it only no longer travels replica → main → replica as copies (~30 ms a step at the
// demo's base model with 2 workers, measured). A parameter no replica has a gradient for stays out of
// the step, as before.
//
// Barriers are Atomics.wait on a generation counter, in slices of `pollMs`, checking an abort flag: the
// main thread raises it when a replica fails or dies mid-exchange, so the others throw instead of
// waiting forever. After an abort the replicas may disagree (one may have applied its step), so the
// backend treats it as fatal.

/** Shared buffers of one exchange; structured-clone safe (sent to every replica once). */
export interface GradientExchange {
  /** Parameter names in canonical order, and their element counts. */
  names: string[];
  sizes: number[];
  /** One slot of Σ sizes floats per replica. */
  slots: SharedArrayBuffer[];
  /** Int32 [replica × parameter]: 1 when that replica has a gradient for that parameter. */
  present: SharedArrayBuffer;
  /** The summed gradients, Σ sizes floats. */
  sum: SharedArrayBuffer;
  /** Int32 [generation, arrived, aborted]. */
  control: SharedArrayBuffer;
}

const generation = 0;
const arrived = 1;
const aborted = 2;

export class ExchangeAbortedError extends Error {
  constructor() {
    super('gradient exchange aborted: another policy worker failed');
    this.name = 'ExchangeAbortedError';
  }
}

/** Buffers for `replicas` replicas of a model whose parameters are `names` with `sizes` elements. */
export function createGradientExchange(names: string[], sizes: number[], replicas: number): GradientExchange {
  if (names.length !== sizes.length) throw new RangeError('createGradientExchange: names and sizes differ');
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const floats = () => new SharedArrayBuffer(total * Float32Array.BYTES_PER_ELEMENT);
  return {
    names: [...names],
    sizes: [...sizes],
    slots: Array.from({ length: replicas }, floats),
    present: new SharedArrayBuffer(replicas * names.length * Int32Array.BYTES_PER_ELEMENT),
    sum: floats(),
    control: new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT),
  };
}

/** Wakes every replica waiting in the exchange and makes it throw ExchangeAbortedError (main thread). */
export function abortGradientExchange(exchange: GradientExchange): void {
  const control = new Int32Array(exchange.control);
  Atomics.store(control, aborted, 1);
  Atomics.notify(control, generation);
}

/** [start, end) of the flat vector that replica `index` of `replicas` sums. */
export function shardOf(total: number, index: number, replicas: number): [number, number] {
  return [Math.floor((index * total) / replicas), Math.floor(((index + 1) * total) / replicas)];
}

/** One replica's side of the exchange (worker thread). */
export class ExchangeMember {
  private readonly offsets: number[] = [];
  private readonly total: number;
  private readonly control: Int32Array;
  private readonly present: Int32Array;
  private readonly slots: Float32Array[];
  private readonly sum: Float32Array;

  constructor(
    private readonly exchange: GradientExchange,
    private readonly index: number,
    private readonly pollMs = 50,
  ) {
    let offset = 0;
    for (const size of exchange.sizes) {
      this.offsets.push(offset);
      offset += size;
    }
    this.total = offset;
    this.control = new Int32Array(exchange.control);
    this.present = new Int32Array(exchange.present);
    this.slots = exchange.slots.map((slot) => new Float32Array(slot));
    this.sum = new Float32Array(exchange.sum);
  }

  /**
   * Contributes `gradients` (by parameter name; an absent name is no gradient) and returns the sum over
   * all replicas, as views into the shared sum, for the parameters at least one replica had. The views
   * stay valid until this replica's next allReduce.
   */
  allReduce(gradients: ReadonlyMap<string, Float32Array>): Map<string, Float32Array> {
    const { names, sizes } = this.exchange;
    const replicas = this.slots.length;
    for (const name of gradients.keys()) {
      if (!names.includes(name)) throw new Error(`gradient for unknown parameter '${name}'`);
    }
    const slot = this.slots[this.index];
    names.forEach((name, p) => {
      const values = gradients.get(name);
      if (values && values.length !== sizes[p]) {
        throw new Error(`gradient '${name}' has ${values.length} values, the parameter ${sizes[p]}`);
      }
      if (values) slot.set(values, this.offsets[p]);
      this.present[this.index * names.length + p] = values ? 1 : 0;
    });
    this.barrier();
    const [start, end] = shardOf(this.total, this.index, replicas);
    names.forEach((_, p) => {
      const from = Math.max(start, this.offsets[p]);
      const to = Math.min(end, this.offsets[p] + sizes[p]);
      if (from >= to) return;
      let first = true;
      for (let replica = 0; replica < replicas; replica++) {
        if (!this.present[replica * names.length + p]) continue;
        const source = this.slots[replica];
        if (first) this.sum.set(source.subarray(from, to), from);
        else for (let j = from; j < to; j++) this.sum[j] += source[j];
        first = false;
      }
    });
    this.barrier();
    const summed = new Map<string, Float32Array>();
    names.forEach((name, p) => {
      let any = false;
      for (let replica = 0; replica < replicas; replica++)
        any ||= this.present[replica * names.length + p] === 1;
      if (any) summed.set(name, this.sum.subarray(this.offsets[p], this.offsets[p] + sizes[p]));
    });
    return summed;
  }

  /** Waits until every replica has arrived (a reusable generation barrier). */
  private barrier(): void {
    const control = this.control;
    const replicas = this.slots.length;
    const current = Atomics.load(control, generation);
    if (Atomics.load(control, aborted)) throw new ExchangeAbortedError();
    if (Atomics.add(control, arrived, 1) === replicas - 1) {
      Atomics.store(control, arrived, 0);
      Atomics.add(control, generation, 1);
      Atomics.notify(control, generation);
      return;
    }
    while (Atomics.load(control, generation) === current) {
      if (Atomics.load(control, aborted)) throw new ExchangeAbortedError();
      Atomics.wait(control, generation, current, this.pollMs);
    }
  }
}
