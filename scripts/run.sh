#!/usr/bin/env bash
# Install everything into .venv, prepare the demo documents, and start DocuChat on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh

export HF_HUB_OFFLINE=1
DATA_DIR="${DOCUCHAT_DATA_DIR:-data/runtime}"
if [ ! -f data/samples/sample_questions.jsonl ]; then  # the demo documents and their example questions
  .venv/bin/python -m samples --out data/samples
fi
if [ ! -f "$DATA_DIR/catalog.sqlite3" ]; then
  echo "Indexing the sample documents (first start only)..."
  .venv/bin/python -m core --data-dir "$DATA_DIR" ingest data/samples/*.pdf data/samples/*.xlsx data/samples/*.csv || true
fi
exec .venv/bin/streamlit run app.py --server.address "${DOCUCHAT_ADDRESS:-127.0.0.1}" --server.port "${DOCUCHAT_PORT:-8501}"
