// Which OpenBLAS kernels the addon runs, for results that do not depend on the machine. OpenBLAS (Debian's
// DYNAMIC_ARCH build) picks its sgemm kernels by CPU when it loads: Haswell's on AVX2 machines, SkylakeX's
// or Cooperlake's on AVX-512 ones, and those round differently, so one seed gave other completions on an
// AVX-512 machine than on the AVX2 machines the recorded fingerprints came from (identity-unchanged.test.ts;
// measured here: AMD EPYC with AVX-512 → Cooperlake, other log-probs; OPENBLAS_CORETYPE=Haswell or Zen →
// the recorded values). On x86-64 with AVX2 and FMA the addon therefore loads OpenBLAS with its Haswell
// kernels (OPENBLAS_CORETYPE=Haswell, set for the load only), so a run is the same on every such machine.
//
// CURRICULA_BLAS_CORE=auto keeps OpenBLAS's own choice (the CPU's widest kernels); an OPENBLAS_CORETYPE
// the user sets is kept as given. Elsewhere (no AVX2/FMA, not x86-64, no /proc/cpuinfo) nothing is pinned.
import { readFileSync } from 'node:fs';

/** The core type reproducible runs use on x86-64 (its kernels need AVX2 and FMA). */
export const reproducibleBlasCore = 'Haswell';

/** The CPU flags of this machine (Linux /proc/cpuinfo), or null where they cannot be read. */
export function cpuFlags(): Set<string> | null {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((text) => text.startsWith('flags'));
    return line === undefined
      ? null
      : new Set(
          line
            .slice(line.indexOf(':') + 1)
            .trim()
            .split(/\s+/),
        );
  } catch {
    return null;
  }
}

/** The OPENBLAS_CORETYPE to load OpenBLAS with; undefined = leave OpenBLAS's choice (or the user's). */
export function pinnedBlasCore(
  env: NodeJS.ProcessEnv,
  arch: string,
  flags: ReadonlySet<string> | null,
): string | undefined {
  if (env.OPENBLAS_CORETYPE !== undefined || env.CURRICULA_BLAS_CORE === 'auto') return undefined;
  if (arch !== 'x64' || flags === null) return undefined;
  return flags.has('avx2') && flags.has('fma') ? reproducibleBlasCore : undefined;
}
