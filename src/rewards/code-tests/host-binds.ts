// What of the host a sandbox sees and who runs it: /usr read-only plus the root-level links or directories
// of merged-/usr systems and a few /etc files the interpreters read; bwrap runs as nobody when we are root.
import { lstatSync } from 'node:fs';

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
