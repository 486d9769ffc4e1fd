#!/usr/bin/env bash
# The Debian/Ubuntu packages Curricula uses, installed by the project itself so that the README's
# `npm ci && npm start` and `npm ci && npm test` work on a bare machine. Two profiles:
#   native   libopenblas-dev: the native kernels' BLAS. Run by native/build.mjs at `npm ci` in a
#            source checkout, before it builds the addon (without it the policy runs on slower wasm).
#   test     (the default) everything the test suite uses; run by `npm test` (scripts/pretest.sh).
# Nothing is installed when everything is present (a few dpkg lookups).
#   - as root: missing packages are installed with apt-get (one line says which);
#   - otherwise: one line with the exact command to run, and exit 0: what needs a missing package falls
#     back (wasm kernels) or its tests skip, each named with its reason at the end of the test summary;
#   - CURRICULA_STRICT_DEPS=1: a missing package that cannot be installed is an error (exit 1), and the
#     tests that need one fail instead of skipping (CI sets it, so that nothing is skipped unnoticed);
#   - CURRICULA_SKIP_SYSTEM_DEPS=1: check and install nothing;
#   - `--list`: print the test profile's packages, one line, and exit (.ci/run removes them first).
# What needs what:
#   libopenblas-dev   the native matmul addon (native/), built by `npm ci`
#   bubblewrap        the code-tests reward's sandbox (src/rewards/code-tests)
#   chromium          the dashboard's browser test (playwright-core drives it; nothing downloads a browser)
#   python3-*         the stock Tinker SDK in test/tinker-sdk.test.ts (its vendored wheels + these; no PyPI)
set -euo pipefail
list_only=""
if [ "${1:-}" = "--list" ]; then
  list_only=1
  shift
fi
[ -z "$list_only" ] && [ "${CURRICULA_SKIP_SYSTEM_DEPS:-}" = "1" ] && exit 0

profile=${1:-test}
case "$profile" in
  native)
    packages=(libopenblas-dev)
    purpose="the native kernels need"
    ;;
  test)
    packages=(libopenblas-dev bubblewrap chromium python3-venv python3-httpx python3-h2 python3-anyio
      python3-sniffio python3-protobuf python3-rich python3-click python3-zstandard python3-distro
      python3-numpy)
    purpose="the tests need"
    ;;
  *)
    echo "usage: scripts/system-deps.sh [native|test]" >&2
    exit 2
    ;;
esac
if [ -n "$list_only" ]; then
  echo "${packages[*]}"
  exit 0
fi
strict=${CURRICULA_STRICT_DEPS:-}
give_up() {
  echo "$1" >&2
  [ "$strict" = "1" ] && exit 1
  exit 0
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  give_up "curricula: not a Debian/Ubuntu system, so nothing was installed; $purpose: OpenBLAS headers (libopenblas-dev), bubblewrap, chromium (at /usr/bin/chromium), python3 with venv, httpx, h2, anyio, sniffio, protobuf, rich, click, zstandard, distro, numpy (set CURRICULA_SKIP_SYSTEM_DEPS=1 to skip this check)"
fi

# Installed means dpkg's "installed" state: a package removed without purging stays known to dpkg in
# "config-files" state (chromium does, for its /etc files), and `dpkg -s` succeeds on it.
installed() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = "installed" ]
}

missing=()
for pkg in "${packages[@]}"; do
  installed "$pkg" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# Rebuilding the addon matters only when its BLAS was among the missing packages.
then_build=""
case " ${missing[*]} " in *" libopenblas-dev "*) then_build=" && npm run build:native" ;; esac

if [ "$(id -u)" -ne 0 ]; then
  give_up "curricula: Debian packages $purpose are missing; install them with: sudo apt-get install -y ${missing[*]}$then_build"
fi
echo "curricula: installing Debian packages $purpose: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# apt's output is kept for a failure only (debconf and dpkg chatter otherwise).
apt_log=$(mktemp)
trap 'rm -f "$apt_log"' EXIT
if ! { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >"$apt_log" 2>&1; then
  tail -n 5 "$apt_log" >&2
  give_up "curricula: apt-get could not install ${missing[*]}; install them with: apt-get install -y ${missing[*]}$then_build"
fi
