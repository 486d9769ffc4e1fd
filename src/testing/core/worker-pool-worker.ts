// Test fixture for worker-pool.test.ts: a worker that echoes, sleeps (busy-waits), throws or exits on demand.
import { serveWorker } from '../../core/worker-pool.ts';

export type FixtureTask =
  | { kind: 'echo'; value: number }
  | { kind: 'spin'; ms: number }
  | { kind: 'throw'; message: string }
  | { kind: 'exit' };

serveWorker<FixtureTask, number>((task) => {
  switch (task.kind) {
    case 'echo':
      return task.value * 2;
    case 'spin': {
      const end = Date.now() + task.ms;
      while (Date.now() < end) {
        // busy-wait: synchronous code that only terminate() can stop
      }
      return task.ms;
    }
    case 'throw':
      throw new Error(task.message);
    case 'exit':
      process.exit(3);
  }
});
