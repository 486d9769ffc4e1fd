// The two collective calls of the worker-parallel backend (parallel-backend.ts) over its replica links:
// scatter (one call per worker with work, results in worker order) and, for tests, the gradient sum
// (every replica's gradients added here in worker order with float32 rounding).
import type { ForwardBackwardResult } from '../core/policy.ts';
import { PolicyWorkerError, type WorkerLink } from './worker-link.ts';
import type { GradientList } from './worker-replica.ts';

/**
 * Runs `call` on each worker with a non-empty chunk ([start, end) of the caller's data) and returns the
 * results in worker order. If any call fails, waits for the others (so no call is left running into the
 * next one) and throws the first failure in worker order.
 */
export async function scatter<T>(
  links: readonly WorkerLink[],
  chunks: [number, number][],
  call: (link: WorkerLink, start: number, end: number) => Promise<T>,
): Promise<T[]> {
  const settled = await Promise.allSettled(
    chunks.flatMap(([start, end], index) => (end > start ? [call(links[index], start, end)] : [])),
  );
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}

/**
 * Every replica's accumulated gradients (kept there) summed here in worker order (float32 adds), for
 * tests: the independent reference for the shared-memory exchange (gradient-exchange.ts) that optimStep
 * uses.
 */
export async function sumGradients(links: readonly WorkerLink[]): Promise<Map<string, Float32Array>> {
  const parts = await scatter(
    links,
    links.map((): [number, number] => [0, 1]),
    (link) => link.call<GradientList>('gradients'),
  );
  const summed = new Map<string, Float32Array>();
  for (const part of parts) {
    part.names.forEach((name, i) => {
      const values = part.values[i];
      const total = summed.get(name);
      if (!total) {
        summed.set(name, values);
        return;
      }
      if (total.length !== values.length) {
        throw new PolicyWorkerError(
          `gradient '${name}' has ${values.length} values in one worker, ${total.length} in another`,
        );
      }
      // A Float32Array rounds each sum to float32, as tf.add would.
      for (let j = 0; j < total.length; j++) total[j] += values[j];
    });
  }
  return summed;
}

/**
 * One forwardBackward result from the replicas' parts, in worker order: losses and token counts summed,
 * log-probs (and entropies, when any part has them) concatenated in input order.
 */
export function mergeForwardBackward(parts: readonly ForwardBackwardResult[]): ForwardBackwardResult {
  let loss = 0;
  let tokens = 0;
  for (const part of parts) {
    loss += part.loss;
    tokens += part.tokens;
  }
  const entropies = parts.some((part) => part.entropies)
    ? parts.flatMap((part) => part.entropies ?? part.logprobs.map((row) => row.map(() => 0)))
    : undefined;
  return { loss, logprobs: parts.flatMap((part) => part.logprobs), tokens, ...(entropies && { entropies }) };
}
