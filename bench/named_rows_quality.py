"""The rules that read named rows whole (core.annotations.named_rows: the row after or before a named one,
the larger of two named rows) over every WikiTableQuestions question of a part, scoped to its table, with
no model: on how many questions they fire, and how many of those answers hold the reference.

    DOCUCHAT_DATA_DIR=/work/kb/records/kb python -m bench.named_rows_quality --part dev [--show]

The knowledge base must hold the tables (see bench/table_quality.py). A question the rules leave alone is
the plan's; bench.table_quality measures the whole path with the model.
"""
from __future__ import annotations

import argparse

from bench import splits
from bench.table_quality import QA, file_of, load, matches


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    splits.add_argument(parser)
    parser.add_argument("--show", action="store_true", help="print each answer the rules give")
    args = parser.parse_args(argv)

    from core.annotations.named_rows import rows_named
    from core.config import load_settings
    from core.workspace import Workspace

    ws = Workspace(load_settings())
    tables = {t.filename: t for t in ws.pipeline.tables.tables()}
    asked = fired = right = 0
    for row in load(QA, args.part):
        table = tables.get(file_of(row["context"]))
        if table is None:
            continue
        asked += 1
        planned = rows_named(row["utterance"], table, ws.pipeline.executor)
        if planned is None:
            continue
        fired += 1
        held = matches(row["targetValue"], planned.said)
        right += held
        if args.show:
            print(f"{'OK ' if held else 'no '} {row['utterance']!r} -> {planned.said!r}")
    ws.close()
    print(f"{args.part}: {asked} questions with their table; the rules answered {fired}, "
          f"the reference holds {right} of those")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
