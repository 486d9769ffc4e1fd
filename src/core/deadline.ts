// A promise with a wall-clock limit, for calls into code we do not control (teachers, environments,
// tools): withDeadline settles with the work's result, or rejects with a DeadlineError once `ms` have
// passed. The work itself is not cancelled; its late result is ignored, and a late rejection is handled
// (Promise.race subscribes to the work), so an abandoned call never becomes an unhandled rejection.

/** The error of a call that did not settle within its deadline. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
}

/** `work`'s result, or a DeadlineError(`message`) after `ms` milliseconds. */
export async function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(message)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
