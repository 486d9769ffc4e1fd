// The error a restarted server gives an optim_step whose gradient it no longer has. forward_backward
// accumulates a gradient in memory; a restart between forward_backward and optim_step loses it. Stepping
// anyway would apply a wrong update (Adam's momentum moves the weights even with a zero gradient), so the
// restored model notices the missing seq_ids (sequencer.ts resume mode) and refuses the optim_step with:
//   {"error": "gradient lost in a server restart: …", "category": "server", "code": "gradient_lost",
//    "lost_seq_ids": [from, to], "replay_after_seq_id": n}
// `category` stays one of the SDK's (unknown|server|user, tinker-wire-sdk-0.25.md §4) so the stock SDK
// fails cleanly; our client (TinkerPolicyBackend) recognises `code` and replays the forward_backward calls
// since its last completed optim_step, then the optim_step (docs/tinker-serving.md).
import { CurriculaError } from '../../core/errors.ts';

export const gradientLostCode = 'gradient_lost';

export class GradientLostError extends CurriculaError {
  override name = 'GradientLostError';
  readonly code = gradientLostCode;
  constructor(
    readonly lostFrom: number,
    readonly lostTo: number,
    readonly replayAfterSeqId: number,
  ) {
    super(
      `gradient lost in a server restart: seq_ids ${lostFrom}..${lostTo} never reached this server, so the gradient since the last optim_step is gone; replay the forward_backward calls with seq_ids after ${replayAfterSeqId}, then optim_step`,
    );
  }

  get details(): Record<string, unknown> {
    return { lost_seq_ids: [this.lostFrom, this.lostTo], replay_after_seq_id: this.replayAfterSeqId };
  }
}
