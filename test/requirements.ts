// What a test needs from the machine beyond npm packages, and what it does when that is missing: it skips,
// and its name carries the reason, which test/skip-summary.ts lists at the end of the run. The Debian
// packages come from scripts/system-deps.sh (`npm test` installs them as root); with
// CURRICULA_STRICT_DEPS=1 (CI) a missing one is not skipped, so its tests run and fail, and nothing that
// should have been tested is skipped unnoticed. Optional extras that no script installs (PyTorch, for the
// baselines) always skip when absent.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { nativeKernelStatus, nativeKernelsAvailable } from '../src/policy/native-kernels.ts';

export interface Requirement {
  /** True when the tests that need it must be skipped. */
  skip: boolean;
  /** '' when met; otherwise ` (skipped: why; how to get it)`, appended to the test's name. */
  label: string;
}

const strict = process.env.CURRICULA_STRICT_DEPS === '1';

/** A requirement from whether it is met and, when not, why and how to get it. */
export function requirement(met: boolean, why: string, options: { optional?: boolean } = {}): Requirement {
  if (met) return { skip: false, label: '' };
  if (strict && !options.optional)
    return { skip: false, label: ` (required by CURRICULA_STRICT_DEPS: ${why})` };
  return { skip: true, label: ` (skipped: ${why})` };
}

/** How a missing Debian package is brought in: said after its name. */
const systemDepsHint = 'as root, npm test installs it';

/** The native kernels addon (native/, built by `npm ci` with libopenblas-dev). */
export function nativeKernels(): Requirement {
  return requirement(nativeKernelsAvailable(), nativeKernelStatus().reason);
}

/** Debian's bubblewrap, the code-tests reward's sandbox. */
export function bubblewrap(): Requirement {
  return requirement(
    existsSync('/usr/bin/bwrap'),
    `no /usr/bin/bwrap, from Debian bubblewrap; ${systemDepsHint}`,
  );
}

export const chromiumPath = '/usr/bin/chromium';

/** Debian's chromium, for the dashboard's browser test. */
export function chromium(): Requirement {
  return requirement(existsSync(chromiumPath), `no ${chromiumPath}, from Debian chromium; ${systemDepsHint}`);
}

/** The Debian python3 modules the stock Tinker SDK runs on (test/interop/tinker-sdk/setup.sh). */
export function tinkerSdkPython(): Requirement {
  const modules = [
    'venv',
    'httpx',
    'h2',
    'anyio',
    'sniffio',
    'google.protobuf',
    'rich',
    'click',
    'zstandard',
    'distro',
    'numpy',
  ];
  const probe = spawnSync('/usr/bin/python3', ['-c', `import ${modules.join(', ')}`], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return requirement(
    probe.status === 0,
    `/usr/bin/python3 lacks modules the Tinker SDK needs, from Debian python3-*; ${systemDepsHint}`,
  );
}

/**
 * `make()` when the requirement is met; otherwise undefined, typed as the value, for a module-level
 * fixture (a reward whose constructor probes the sandbox) that only skipped tests would use.
 */
export function unlessSkipped<T>(need: Requirement, make: () => T): T {
  return need.skip ? (undefined as T) : make();
}
