"""Find tables in a grid of cells (a sheet or a CSV) and serialize their rows.

Real spreadsheets are not one clean table: a merged title row sits above the header, notes rows
trail below, and several tables share a sheet separated by blank rows. Each data row is written
as "Header: value | Header: value" so that a chunk holding only some rows still says what
every number means.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

Cell = object
Grid = list[list[Cell]]


@dataclass
class TableBlock:
    header: list[str]
    rows: list[list[str]]
    row_numbers: list[int]  # 1-based position of each data row in the sheet
    title_lines: list[str] = field(default_factory=list)
    note_lines: list[str] = field(default_factory=list)


def cell_text(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value).strip()


def _filled(row: list[str]) -> int:
    return sum(1 for c in row if c)


def _split_blocks(rows: list[list[str]]) -> list[list[tuple[int, list[str]]]]:
    """Runs of non-blank rows, each row kept with its 1-based row number."""
    blocks: list[list[tuple[int, list[str]]]] = []
    current: list[tuple[int, list[str]]] = []
    for number, row in enumerate(rows, start=1):
        if _filled(row) == 0:
            if current:
                blocks.append(current)
                current = []
            continue
        current.append((number, row))
    if current:
        blocks.append(current)
    return blocks


def _header_names(row: list[str]) -> list[str]:
    names, seen = [], {}
    for i, cell in enumerate(row):
        name = cell or f"column {i + 1}"
        count = seen.get(name, 0)
        seen[name] = count + 1
        names.append(name if count == 0 else f"{name} ({count + 1})")
    return names


def find_tables(grid: Grid) -> list[TableBlock]:
    rows = [[cell_text(c) for c in row] for row in grid]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    tables: list[TableBlock] = []
    pending_titles: list[str] = []
    for block in _split_blocks(rows):
        # Single-cell rows before the header are titles (merged cells read as one value).
        start = 0
        if all(_filled(row) < 2 for _, row in block) and len(block) > 1:
            # A one-column table (a list of names): its first row is the header.
            tables.append(_one_column_table(block, pending_titles))
            pending_titles = []
            continue
        while start < len(block) and _filled(block[start][1]) < 2:
            pending_titles.append(" ".join(c for c in block[start][1] if c))
            start += 1
        if start >= len(block):
            continue  # only titles or notes: they attach to the next table
        header = _header_names(block[start][1])
        body = block[start + 1:]
        data, numbers, notes = [], [], []
        for number, row in body:
            if _filled(row) == 1 and len(header) > 2 and _looks_like_note(row):
                notes.append(" ".join(c for c in row if c))
                continue
            data.append(row)
            numbers.append(number)
        last_used = max((i for i, h in enumerate(block[start][1]) if h), default=0)
        for row in data:
            last_used = max(last_used, max((i for i, c in enumerate(row) if c), default=0))
        header = header[: last_used + 1]
        data = [r[: last_used + 1] for r in data]
        tables.append(TableBlock(header, data, numbers, pending_titles, notes))
        pending_titles = []
    if pending_titles and tables:
        tables[-1].note_lines.extend(pending_titles)
    elif pending_titles:  # a sheet of prose: keep it as notes of an empty table
        tables.append(TableBlock([], [], [], [], pending_titles))
    return tables


def _one_column_table(block: list[tuple[int, list[str]]], titles: list[str]) -> TableBlock:
    column = next((i for i, c in enumerate(block[0][1]) if c), 0)
    header = [block[0][1][column]]
    rows = [[row[column]] for _, row in block[1:]]
    return TableBlock(header, rows, [number for number, _ in block[1:]], titles, [])


def _looks_like_note(row: list[str]) -> bool:
    text = next(c for c in row if c)
    return len(text) > 25 or text.lower().startswith(("note", "source", "*", "total rows"))


def serialize_row(header: list[str], row: list[str]) -> str:
    parts = [f"{h}: {v}" for h, v in zip(header, row) if v]
    return " | ".join(parts)


def table_lines(table: TableBlock) -> tuple[list[str], list[int]]:
    """Lines for a table section and the sheet row number each line stands for."""
    lines: list[str] = []
    numbers: list[int] = []
    first = table.row_numbers[0] if table.row_numbers else 1
    for title in table.title_lines:
        lines.append(title)
        numbers.append(first)
    for number, row in zip(table.row_numbers, table.rows):
        text = serialize_row(table.header, row)
        if text:
            lines.append(text)
            numbers.append(number)
    last = table.row_numbers[-1] if table.row_numbers else first
    for note in table.note_lines:
        lines.append(note)
        numbers.append(last)
    return lines, numbers


_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*(:?-{3,}:?\s*)?\|?\s*$")


def _pipe_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def split_pipe_tables(text: str) -> tuple[str, list[Grid]]:
    """A text without its Markdown pipe tables, and each table as a grid: the heading or line just above
    it as a one-cell title row, then its header and rows. A run of "|" lines is a table only when its
    second line is the "|---|---|" rule."""
    lines = text.split("\n")
    prose: list[str] = []
    grids: list[Grid] = []
    i = 0
    while i < len(lines):
        if _PIPE_ROW.match(lines[i]) and i + 1 < len(lines) and _PIPE_RULE.match(lines[i + 1]):
            end = i + 2
            while end < len(lines) and _PIPE_ROW.match(lines[end]):
                end += 1
            title = next((line.strip().lstrip("#").strip() for line in reversed(prose) if line.strip()), "")
            grids.append(([[title]] if title else []) + [_pipe_cells(lines[i])] + [_pipe_cells(r) for r in lines[i + 2:end]])
            i = end
        else:
            prose.append(lines[i])
            i += 1
    return "\n".join(prose), grids
