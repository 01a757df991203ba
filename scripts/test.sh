#!/usr/bin/env bash
# Install everything including test dependencies into .venv, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh --dev

# The browser tests drive Debian's Chromium (never a downloaded browser build).
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# Known vulnerabilities of the installed dependencies: printed, never fails the build (see the script).
bash scripts/audit.sh

export HF_HUB_OFFLINE=1
# Two workers: one pytest process used 1.3 of the 2 cores and took 20 min idle; two take 12 min
# (docs/benchmarks.md). Each test file runs whole on one worker, and the files that run the language model
# share one (tests/conftest.py).
.venv/bin/python -m pytest -q -n "${TEST_WORKERS:-2}" "$@"
