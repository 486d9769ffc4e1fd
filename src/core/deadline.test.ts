// withDeadline: the work's result or error in time, a DeadlineError after the deadline, and a late
// rejection of abandoned work handled (vitest fails a file on an unhandled rejection).
import { describe, expect, it } from 'vitest';
import { DeadlineError, withDeadline } from './deadline.ts';

const settleAfter = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) =>
    setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms),
  );

describe('withDeadline', () => {
  it('passes on a result or an error that comes in time', async () => {
    await expect(withDeadline(settleAfter(5, 'yes'), 200, 'late')).resolves.toBe('yes');
    await expect(withDeadline(settleAfter(5, 'no', true), 200, 'late')).rejects.toThrow('no');
  });

  it('rejects with a DeadlineError after the deadline, and handles the late rejection', async () => {
    const late = withDeadline(settleAfter(80, 'boom', true), 20, 'step did not answer');
    await expect(late).rejects.toBeInstanceOf(DeadlineError);
    await expect(late).rejects.toThrow('step did not answer');
    await settleAfter(120, null); // the abandoned work rejects here; nothing may be left unhandled
  });
});
