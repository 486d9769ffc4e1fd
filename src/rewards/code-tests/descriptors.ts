// Which file descriptors a spawned bwrap gets. Node's spawn (libuv) only replaces the descriptors named in
// `stdio`; every other descriptor our process holds without close-on-exec passes through to the child.
// Node opens its own descriptors with O_CLOEXEC, so those are descriptors the trainer inherited from
// whatever launched it (a CI runner's pipes, a shell's `exec 3<dir`). bwrap does not close them for the
// sandboxed program, and a directory descriptor lets the program `openat(fd, "..")` into the host
// filesystem. So each such descriptor's slot is filled with /dev/null (read-only) in the child: the
// program can still see the number, but it names nothing of the host.
//
// Residual risk: a descriptor opened without close-on-exec by another thread between the scan and the
// spawn (node's own code does not do that; a native addon might) is not covered.
import { openSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC as /proc/<pid>/fdinfo reports it in `flags:` (octal). */
const closeOnExec = 0o2000000;

/** Descriptors ≥ 3 that this process holds without close-on-exec (read from Linux /proc/self). */
export function inheritableDescriptors(): number[] {
  const found: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return found;
  }
  for (const name of names) {
    const fd = Number(name);
    if (!(fd >= 3)) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      continue; // closed since the listing (e.g. the listing's own descriptor)
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info);
    if (flags && (Number.parseInt(flags[1], 8) & closeOnExec) === 0) found.push(fd);
  }
  return found;
}

let devNull: number | undefined;

/**
 * The `stdio` option for spawning bwrap: `passed` pipes (stdin, stdout, stderr and the descriptors we hand
 * over, numbered 0 … passed − 1), then /dev/null in the slot of every inherited descriptor above them.
 */
export function spawnStdio(passed: number): ('pipe' | 'ignore' | number)[] {
  const stdio: ('pipe' | 'ignore' | number)[] = Array.from({ length: passed }, () => 'pipe' as const);
  const inherited = inheritableDescriptors().filter((fd) => fd >= passed);
  if (inherited.length === 0) return stdio;
  // Opened with O_CLOEXEC by node, so it is not itself inherited; dup2'd into each slot in the child.
  devNull ??= openSync('/dev/null', 'r');
  const slots = new Set(inherited);
  const highest = Math.max(...inherited);
  for (let fd = passed; fd <= highest; fd++) stdio.push(slots.has(fd) ? devNull : 'ignore');
  return stdio;
}
