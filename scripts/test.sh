#!/usr/bin/env bash
# Install everything including test dependencies into .venv, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh --dev

export HF_HUB_OFFLINE=1
.venv/bin/python -m pytest -q "$@"
