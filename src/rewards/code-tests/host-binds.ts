// What of the host a sandbox sees and who runs it: /usr read-only plus the root-level links or directories
// of merged-/usr systems and a few /etc files the interpreters read; bwrap runs as nobody when we are root.
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The uid/gid that owns nothing on Debian; used when we are root so that the sandbox is unprivileged.
const nobody = 65534;

/** Spawn options that make bwrap run unprivileged: as nobody when we are root, else as ourselves. */
export function identity(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? { uid: nobody, gid: nobody } : {};
}

let cachedSystemBinds: string[] | undefined;

/** Root-level symlinks of merged-/usr systems (/bin -> usr/bin) are recreated; real directories are bound. */
export function systemBinds(): string[] {
  cachedSystemBinds ??= findSystemBinds();
  return cachedSystemBinds;
}

function findSystemBinds(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64']) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', `usr${dir}`, dir);
    else if (stat.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  // Interpreters read a few files from /etc (locale, ld.so cache, alternatives symlinks); bind only those.
  for (const file of ['/etc/ld.so.cache', '/etc/alternatives', '/etc/localtime']) {
    try {
      lstatSync(file);
      args.push('--ro-bind', file, file);
    } catch {
      // absent on this system; the interpreters start without it
    }
  }
  return args;
}

let cachedProcStat: string | null | undefined;

/**
 * A host file to bind over the sandbox's /proc/stat: the host's cpu lines (so that node's os.cpus() and
 * libc's CPU count still see every CPU) with every counter 0, and the other counters 0: the real ones
 * (forks, context switches, CPU times since boot) are host-wide and one test could move them for the
 * next to read. Written once per process (again if something removed it) into a fresh temporary
 * directory; null when that fails (the caller then binds /dev/null, and os.cpus() is empty).
 */
export function staticProcStat(): string | null {
  if (cachedProcStat !== undefined && (cachedProcStat === null || existsSync(cachedProcStat)))
    return cachedProcStat;
  try {
    const cpus = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((line) => /^cpu\d*\s/.test(line))
      .map((line) => `${line.split(/\s+/)[0]}${' 0'.repeat(10)}`);
    const content = `${[...cpus, 'intr 0', 'ctxt 0', 'btime 0', 'processes 0', 'procs_running 1', 'procs_blocked 0', 'softirq 0'].join('\n')}\n`;
    // A fresh directory of our own (a fixed name in a shared /tmp could be a symlink planted by someone
    // else), readable by the sandbox user; removed when the process exits.
    const directory = mkdtempSync(join(tmpdir(), 'code-tests-proc-'));
    chmodSync(directory, 0o755);
    process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
    const path = join(directory, 'stat');
    writeFileSync(path, content, { mode: 0o644 });
    chmodSync(path, 0o644);
    cachedProcStat = path;
  } catch {
    cachedProcStat = null;
  }
  return cachedProcStat;
}
