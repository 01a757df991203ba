"""Write the demo documents and their example question file.

    python -m samples                  # into data/samples
    python -m samples --out /tmp/demo  # anywhere else
    python -m samples --check          # and load every file with DocuChat's loaders
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from samples.documents import DEFAULT_OUT, ROOT, check_samples, make_samples
from samples.questions import write_sample_questions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"folder to write into (default {DEFAULT_OUT.relative_to(ROOT)})")
    parser.add_argument("--check", action="store_true", help="load every file with DocuChat's loaders afterwards")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    written = make_samples(args.out)
    for path in [*written, write_sample_questions(args.out)]:
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"{len(written)} documents in {time.perf_counter() - started:.1f} s")
    if args.check:
        for line in check_samples(written):
            print(f"ok    {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
