"""Form fields printed as a row of labels over a row of values.

Invoices and forms often print "Invoice Date:  Due Date:  Reference:" with the values on the line
below; flattened to text, no single line says which value is the due date, so the reader cannot quote
it and the quote check refuses (or the model quotes a neighbouring line). Such a pair of lines is
written as one "label: value" line per field. Only when it parses completely: every cell of the first
line is a label ending in a colon and the next line has exactly one value per label. Anything else
(values with spaces, a short row) is left as printed.
"""
from __future__ import annotations

import re

_ONE_LABEL = r"\s*([^\s:][^:]{0,40}?)\s*:"  # "Due Date:"
_LABEL = re.compile(_ONE_LABEL)
_LABEL_ROW = re.compile(rf"^(?:{_ONE_LABEL})+\s*$")


def _labels(line: str) -> list[str]:
    return [m.group(1).strip() for m in _LABEL.finditer(line)] if _LABEL_ROW.match(line) else []


def pair_stacked_fields(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        labels = _labels(lines[i])
        values = lines[i + 1].split() if len(labels) >= 2 and i + 1 < len(lines) else []
        if values and len(values) == len(labels) and not any(v.endswith(":") for v in values):
            out += [f"{label}: {value}" for label, value in zip(labels, values)]
            i += 2
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)
