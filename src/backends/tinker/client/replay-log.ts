// What the client must be able to re-send after a server restart (docs/tinker-serving.md, "Surviving a
// server restart"). A Tinker server keeps the gradient of forward_backward in memory until optim_step; a
// restarted server (curricula serve --tinker) refuses the optim_step with code `gradient_lost` instead of
// stepping on a gradient it no longer has. The client then re-sends every gradient-carrying
// forward_backward since its last completed optim_step — the same wire datums, loss and config, as NEW
// requests with fresh seq_ids (its counter is already past the server's last executed one) — and then
// the optim_step. The log holds one step's batch (the datums are already in memory for the step), so it
// costs no copy of note; `take` hands the batch to the optim_step that will apply it.
import type { WireDatum } from '../wire/index.ts';
import { TinkerCallError } from './http.ts';

export const gradientLostCode = 'gradient_lost';

export interface ReplayEntry {
  call: string;
  data: WireDatum[];
  lossFn: string;
  lossFnConfig: Record<string, number>;
}

export class ReplayLog {
  private entries: ReplayEntry[] = [];

  record(entry: ReplayEntry): void {
    this.entries.push(entry);
  }

  /** The forward_backward calls since the last take (one optim_step's batch); the log starts anew. */
  take(): ReplayEntry[] {
    const taken = this.entries;
    this.entries = [];
    return taken;
  }
}

/** Whether a failed call is the server's "gradient lost in a restart" refusal. */
export function isGradientLost(error: unknown): boolean {
  return error instanceof TinkerCallError && error.detail.code === gradientLostCode;
}

/** Whether retrieve_future answered 404 for the request (a restarted server never had its future). */
export function isUnknownFuture(error: unknown): boolean {
  return (
    error instanceof TinkerCallError &&
    error.detail.status === 404 &&
    /unknown request_id/.test(error.message)
  );
}

/** Whether a failed call named a sampling session the server does not have (e.g. after a restart). */
export function isUnknownSampler(error: unknown): boolean {
  return (
    error instanceof TinkerCallError &&
    error.detail.status === 404 &&
    /sampling_session_id/.test(error.message)
  );
}
