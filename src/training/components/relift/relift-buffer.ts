// ReLIFT's SFT buffer (arXiv 2506.07527; TheRoadQaQ/ReLIFT relift/verl/verl/relift/trainer.py, `fit`):
// the hardest problems of recent steps, one item per failed group, each with its demonstration, waiting
// for the next SFT update. Pure data: no model, no randomness; its state is saved with every checkpoint.
//
// Order, as the authors keep it: a step's new items go to the FRONT, in batch order
// (`DataProto.concat([buffer_batch, sft_buffer_batch])`), and an SFT update takes the first `size` items
// (`sft_buffer_batch.slice(range(sft_data_size))`) and keeps the rest. So an SFT update trains on the
// newest failures first; older items wait until a step adds fewer than `size` new ones. A problem that
// fails in several steps is in the buffer several times (the authors do not de-duplicate either).
import { z } from 'zod';
import { CheckpointError } from '../../../core/errors.ts';

export interface BufferItem {
  /** The failed problem (its id in the run's pool). */
  problemId: string;
  /** The demonstration's completion text (EOS is appended when it is trained). */
  demonstration: string;
  /** The RL step whose group failed. */
  step: number;
}

const itemSchema = z.strictObject({
  problemId: z.string(),
  demonstration: z.string(),
  step: z.number().int().nonnegative(),
});
const stateSchema = z.strictObject({ items: z.array(itemSchema) });

export class ReliftBuffer {
  private items: BufferItem[] = [];

  get size(): number {
    return this.items.length;
  }

  /** Puts one step's items in front of the older ones, keeping their order. */
  add(items: readonly BufferItem[]): void {
    this.items = [...items, ...this.items];
  }

  /** The first `size` items, removed, when the buffer holds at least that many; otherwise null. */
  take(size: number): BufferItem[] | null {
    if (this.items.length < size) return null;
    const taken = this.items.slice(0, size);
    this.items = this.items.slice(size);
    return taken;
  }

  state(): { items: BufferItem[] } {
    return { items: this.items.map((item) => ({ ...item })) };
  }

  /** Restores a saved state (undefined/null: empty, e.g. a checkpoint from before ReLIFT was enabled). */
  load(state: unknown): void {
    if (state === undefined || state === null) {
      this.items = [];
      return;
    }
    const parsed = stateSchema.safeParse(state);
    if (!parsed.success) {
      throw new CheckpointError(
        `the checkpoint's ReLIFT buffer is malformed: ${parsed.error.issues[0].message}`,
      );
    }
    this.items = parsed.data.items;
  }
}
