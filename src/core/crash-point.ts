// Test-only crash points. End-to-end tests of crash safety set CURRICULA_TEST_CRASH_AT=<point>@<step> in a
// child process's environment; when the product code reaches that named point at that step, the process
// kills itself with SIGKILL (no cleanup, no exit handlers: exactly what kill -9 does). Without the variable
// (every real run) crashPoint returns at once, so the code path under test is the product's own.
// Points: 'checkpoint-staged' (model files written to the staging directory, trainer state not yet) and
// 'checkpoint-renamed' (checkpoint directory in place, LATEST still names the previous one), both in
// src/runs/checkpoints.ts; 'episode-turn' (the N-th time, in this process, that a turn of multi-turn
// episodes ended with some still going: mid-episode, src/training/components/environment/episode-groups.ts;
// its number counts those turns, not steps).
export const crashPointVariable = 'CURRICULA_TEST_CRASH_AT';

/** SIGKILLs this process when CURRICULA_TEST_CRASH_AT is `${point}@${step}`. */
export function crashPoint(point: string, step: number): void {
  if (process.env[crashPointVariable] === `${point}@${step}`) process.kill(process.pid, 'SIGKILL');
}
