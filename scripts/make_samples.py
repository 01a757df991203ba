"""Generate the demo documents: `python scripts/make_samples.py [--out DIR] [--check]`.

The generator lives in core/samples.py so the app's "Load sample documents" button can use it.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.samples import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
