// The cheap half of the capability record: which Tinker losses a server accepts, probed with one
// forward-only forward_backward per loss on a two-token datum (no gradients, no optimizer step), in the
// codec the client uses. Whether an accepted loss computes what Tinker documents is the conformance
// check's job (conformance.ts); servers differ here (remote-and-guidance-2026.md §0 F2: SkyRL validates
// only cross_entropy and importance_sampling and has no dro; Twinkle silently turns unknown losses into
// cross-entropy — which this probe cannot see, and the conformance check does).
import { TinkerPolicyBackend } from './backend.ts';

/** Tinker's LossFnType (SDK 0.25 to 0.31). */
export const tinkerLossNames = ['cross_entropy', 'importance_sampling', 'ppo', 'cispo', 'dro'] as const;

export interface LossProbe {
  loss: string;
  accepted: boolean;
  /** The server's reason when refused. */
  error?: string;
}

export async function probeLosses(
  backend: TinkerPolicyBackend,
  losses: readonly string[] = tinkerLossNames,
): Promise<LossProbe[]> {
  const tokens = [backend.tokenizer.bos, backend.tokenizer.bos];
  const probes: LossProbe[] = [];
  for (const loss of losses) {
    const inputs: Record<string, number[]> =
      loss === 'cross_entropy' ? { weights: [1] } : { logprobs: [-1], advantages: [1] };
    try {
      await backend.forwardBackwardCall(
        `forward (${loss})`,
        [TinkerPolicyBackend.datum(tokens, inputs)],
        loss,
        true,
      );
      probes.push({ loss, accepted: true });
    } catch (error) {
      probes.push({ loss, accepted: false, error: (error as Error).message });
    }
  }
  return probes;
}
