"""The office records' typed tables (issue 22, session 6), with no model: how the ten CSV/XLSX files of
../shared/eval-public/records become tables, and whether each table holds the README's number of rows.

Per table: its rows, its columns with type, unit and twins (ISO date, date-time, base unit, the number a
text starts with, the text of a number), the TOTAL and note rows set aside, each date column's parse rate
and the order its numeric dates were read in, and each category column's values with the spellings
grouped. The expected row counts are read from the README's table of files at run time ("11 + 5": two
tables of one file, in sheet order).

    python -m bench.records_tables                       # ingests the ten files into a new temporary data dir
    python -m bench.records_tables --data-dir DIR        # opens DIR (ingesting the files when it lacks them)
    python -m bench.records_tables --json                # the same as one JSON object
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from bench.table_quality import SHARED

RECORDS = SHARED / "eval-public" / "records"
_README_ROW = re.compile(r"^\|\s*`(?P<file>[^`]+)`\s*\|\s*[\d,]+\s*\|\s*(?P<rows>[\d +]+?)\s*\|")


def expected_rows(readme: Path) -> dict[str, list[int]]:
    """{file: [rows of each of its tables]} from the README's table of files ("| `x.csv` | 49,496 | 473 |")."""
    found = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        match = _README_ROW.match(line)
        if match:
            found[match["file"]] = [int(n) for n in match["rows"].split("+")]
    return found


def describe(table) -> dict:
    """One table's figures, as printed and as JSON."""
    columns = []
    for column in table.columns:
        printed = table.printed.get(column, "")
        columns.append({"column": column, "printed": printed, "type": table.types.get(column),
                        "unit": table.units.get(column), "twin": twin_kind(printed)})
    dates = {c: {**d, "rate": round(d["parsed"] / d["filled"], 3) if d["filled"] else None}
             for c, d in table.dates.items()}
    return {"table": table.name, "file": table.filename, "sheet": table.sheet, "title": table.title,
            "rows": table.row_count, "columns": columns, "dates": dates, "categories": table.categories,
            "set_aside": table.set_aside}


def twin_kind(printed: str) -> str | None:
    """What a twin column restates its neighbour as, from its label (core.annotations.tables)."""
    for ending, kind in (("(YYYY-MM-DD)", "ISO date"), ("(YYYY-MM-DD HH:MM:SS)", "ISO date-time"),
                         ("(as printed)", "printed text")):
        if printed.endswith(ending):
            return kind
    if printed.startswith("the number "):
        return "leading number"
    if re.search(r" in (m|kg|W|%)$", printed):
        return "base unit"
    return None


def compare(tables: list[dict], expected: dict[str, list[int]]) -> list[dict]:
    """Each README file's expected row counts against its tables' (in sheet order, then title order)."""
    rows = []
    for filename, wanted in expected.items():
        got = [t["rows"] for t in tables if t["file"] == filename]
        rows.append({"file": filename, "expected": wanted, "got": got, "right": got == wanted})
    return rows


def ingest_if_needed(workspace, files: list[Path]) -> float:
    held = {d.filename for d in workspace.documents()}
    missing = [p for p in files if p.name not in held]
    started = time.perf_counter()
    for result in workspace.ingest(missing) if missing else []:
        if result.status == "failed":
            print(f"  {result.filename}: {result.message}", file=sys.stderr)
    return time.perf_counter() - started


def print_report(tables: list[dict], comparison: list[dict], seconds: dict) -> None:
    for t in tables:
        print(f"\n== {t['table']}  ({t['file']}{', sheet ' + t['sheet'] if t['sheet'] else ''})  rows {t['rows']}")
        if t["title"]:
            print(f"   title: {t['title']}")
        for c in t["columns"]:
            extra = ", ".join(x for x in (c["unit"] and f"unit {c['unit']}", c["twin"] and f"twin: {c['twin']}") if x)
            print(f"   {c['column']:<24} {c['type']:<5} {c['printed']!r}" + (f"  [{extra}]" if extra else ""))
        for column, d in t["dates"].items():
            order = f", {d['order']} (by {d['decided_by']})" if d["order"] else ""
            print(f"   dates {column}: {d['parsed']}/{d['filled']} parsed ({d['rate']:.1%}){order}"
                  + (f", with times in {d['datetime']}" if d["datetime"] else ""))
        for column, groups in t["categories"].items():
            merged = [g for g in groups if len(g) > 1]
            if merged:
                print(f"   {column}: {len(groups)} values; spellings grouped: "
                      + "; ".join(" = ".join(g) for g in merged))
        for aside in t["set_aside"]:
            cells = " | ".join(f"{k}: {v}" for k, v in aside["cells"].items())
            print(f"   set aside ({aside['kind']}, row {aside['row']}): {cells[:110]}")
    print("\nRow counts against the README")
    for row in comparison:
        print(f"   {'ok ' if row['right'] else 'BAD'} {row['file']:<38} expected {row['expected']}  got {row['got']}")
    right = sum(r["right"] for r in comparison)
    print(f"\n{right}/{len(comparison)} files with the README's row counts; "
          f"ingest {seconds['ingest']:.1f} s, tables built in {seconds['build']:.2f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, help="a data dir to open (the files are ingested when missing)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from core.config import load_settings
    from core.workspace import Workspace

    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="records_tables_"))
    expected = expected_rows(RECORDS / "README.md")
    files = [RECORDS / "docs" / name for name in expected]
    workspace = Workspace(load_settings(data_dir=data_dir))
    try:
        ingest_seconds = ingest_if_needed(workspace, files)
        started = time.perf_counter()
        built = workspace.typed_tables()
        build_seconds = time.perf_counter() - started
        tables = [describe(t) for t in built if t.filename in expected and t.kind == "rows"]
    finally:
        workspace.close()
    tables.sort(key=lambda t: (t["file"], t["sheet"] or ""))
    comparison = compare(tables, expected)
    seconds = {"ingest": ingest_seconds, "build": build_seconds}
    if args.json:
        print(json.dumps({"data_dir": str(data_dir), "tables": tables, "row_counts": comparison, "seconds": seconds},
                         ensure_ascii=False, indent=1))
    else:
        print(f"data dir: {data_dir}")
        print_report(tables, comparison, seconds)
    return 0 if all(r["right"] for r in comparison) else 1


if __name__ == "__main__":
    sys.exit(main())
