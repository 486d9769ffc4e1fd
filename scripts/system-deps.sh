#!/usr/bin/env bash
# The Debian/Ubuntu packages the test suite needs, installed by the project itself (issue 14: the README's
# `npm ci && npm test` must pass on a fresh machine). Run by `npm test` (package.json "pretest") and by
# .ci/run before `npm ci`. Nothing is installed when everything is present (a few dpkg lookups).
#   - as root: missing packages are installed with apt-get (one line says which);
#   - otherwise: one line with the exact command to run, exit 1;
#   - CURRICULA_SKIP_SYSTEM_DEPS=1: skip the check (tests that need a missing package then fail).
# What needs what:
#   bubblewrap        the code-tests reward's sandbox (src/rewards/code-tests)
#   chromium          the dashboard's browser test (playwright-core drives it; nothing downloads a browser)
#   libopenblas-dev   the native matmul addon, built by `npm ci` (without it the policy runs on wasm)
#   python3-*         the stock Tinker SDK in test/tinker-sdk.test.ts (its vendored wheels + these; no PyPI)
set -euo pipefail
[ "${CURRICULA_SKIP_SYSTEM_DEPS:-}" = "1" ] && exit 0

packages=(bubblewrap chromium libopenblas-dev python3-venv python3-httpx python3-h2 python3-anyio
  python3-sniffio python3-protobuf python3-rich python3-click python3-zstandard python3-distro python3-numpy)

if ! command -v dpkg >/dev/null 2>&1; then
  echo "curricula: not a Debian/Ubuntu system; the tests need: bubblewrap, chromium (at /usr/bin/chromium), OpenBLAS headers, python3 with venv, httpx, h2, anyio, sniffio, protobuf, rich, click, zstandard, distro, numpy (set CURRICULA_SKIP_SYSTEM_DEPS=1 to skip this check)" >&2
  exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "curricula: the tests need Debian packages that are missing; install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "curricula: installing Debian packages the tests need: ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
