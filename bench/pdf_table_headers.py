"""How many statement rows of the real filings get column headers, at what cost, and a sample to check by hand.

    .venv/bin/python bench/pdf_table_headers.py [--shared ../shared] [--sample 25] [--seed 11]

Runs the loader's table reader (core/ingest/pdf_tables.py) over every page of the FinanceBench and
Docugami 10-Q PDFs: pages that pass the number-column test, tables, rows with figures, rows with a
header, and the time spent. Then prints `--sample` random rows, each with the page's own lines around
its table, for a person to judge whether every figure sits under the right header.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.ingest.pdf_tables import looks_tabular, page_layout  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shared", type=Path, default=SHARED)
    p.add_argument("--sample", type=int, default=25)
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args(argv)
    import pypdfium2 as pdfium

    files = sorted((args.shared / "corpus" / "financebench").glob("*.pdf"))
    files += sorted((args.shared / "corpus" / "docugami-sec10q").glob("*.pdf"))
    counts = dict(pages=0, tabular=0, tables=0, rows=0, rows_with_header=0)
    check_s = layout_s = 0.0
    rows = []
    for path in files:
        pdf = pdfium.PdfDocument(str(path))
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            started = time.perf_counter()
            tabular = looks_tabular(textpage.get_text_range())
            check_s += time.perf_counter() - started
            counts["pages"] += 1
            if tabular:
                counts["tabular"] += 1
                started = time.perf_counter()
                lines, blocks = page_layout(textpage, page.get_height(), index + 1)
                layout_s += time.perf_counter() - started
                for block in blocks:
                    counts["tables"] += 1
                    for row in block.table.rows:
                        if any(row.values):
                            counts["rows"] += 1
                            counts["rows_with_header"] += any(h for h, v in zip(block.table.columns, row.values) if v)
                            context = " // ".join(line.text for line in lines[max(0, block.first - 2):block.first + 6])
                            rows.append((path.name, index + 1, block.table.row_text(row), context))
            textpage.close()
            page.close()
        pdf.close()
    share = counts["rows_with_header"] / counts["rows"] if counts["rows"] else 0
    print(f"{len(files)} PDFs, {counts['pages']} pages, {counts['tabular']} read as tables, {counts['tables']} tables")
    print(f"rows with figures {counts['rows']}, with a column header {counts['rows_with_header']} ({share:.1%})")
    print(f"number-column test {check_s:.1f} s (all pages, incl. text extraction); "
          f"table layout {layout_s:.1f} s ({1000 * layout_s / max(counts['tabular'], 1):.0f} ms a table page)")
    print(f"load average {[round(x, 1) for x in os.getloadavg()]} on {os.cpu_count()} CPUs")
    random.seed(args.seed)
    for n, (name, page, text, context) in enumerate(random.sample(rows, min(args.sample, len(rows))), start=1):
        print(f"\n#{n} {name} p.{page}\n  PAGE: {context[:700]}\n  ROW:  {text[:700]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
