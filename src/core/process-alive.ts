// Whether a process exists on this machine: signal 0 delivers nothing and fails with ESRCH when there is no
// such process (EPERM: it exists, under another user). Used to tell a dead writer's leftovers from a live one's.
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
