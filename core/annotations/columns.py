"""A table's column read as a whole, not cell by cell.

- Dates: whether 03/04/2024 is the 3rd of April or the 4th of March is decided per column from its
  values (a first part over 12 anywhere says day first, a second part over 12 month first), then by the
  table's other date columns, then by the default; a time printed after a date is kept.
- Values: the spellings of one value ("E-Bikes" / "E-bikes", "Seán" / "Sean", "Cancelled" / "Canceled")
  grouped, so a question's value matches every cell that means it.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache
from dataclasses import dataclass

from core.annotations.documents import find_dates, resolve

# With no evidence in the column or its table, 03/04/2024 is the 3rd of April: most of the world writes
# the day first, and so does every date reader here before (core.annotations.documents.day_first).
DAY_FIRST_DEFAULT = True
# Excel stores a date as days since 1899-12-30; a column headed as a date whose whole numbers fall in this
# range (1954-2119) holds such serial dates (a CSV exported without formatting them).
EXCEL_SERIAL_RANGE = (20_000, 80_000)
# Two spellings one letter apart are one value only when long enough that a letter is a slip, not another
# word ("Band 1" / "Band 2", "Mark" / "Mary" are different values).
SPELLING_MIN_LENGTH = 6

_TIME = re.compile(r"^(?:\s*T|\s*,?\s+)(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?(?:\.\d+)?\s*(?P<ampm>[ap]\.?m\.?)?",
                   re.I)


@dataclass
class DateColumn:
    """A column's cells as ISO dates, and as ISO date-times when some cell prints a time."""
    dates: list[str | None]
    datetimes: list[str | None] | None
    order: str | None  # "day first" | "month first" for numeric dates like 03/04/2024; None for none
    decided_by: str | None  # "column" | "table" | "default": what decided the order
    parsed: int  # filled cells read as a date
    filled: int


def numeric_order(texts: list[str]) -> bool | None:
    """True when the column's numeric dates put the day first (some first part is over 12), False when
    the month (some second part is over 12), None when its values do not say (or say both)."""
    day = month = False
    for text in texts:
        found = next(iter(find_dates(text)), None)
        if found is not None and found.numeric:
            a, b, _ = found.numeric
            day |= a > 12 >= b
            month |= b > 12 >= a
    return day if day != month else None


def read_dates(texts: list[str | None], day_first: bool | None, fallback: bool | None = None) -> DateColumn:
    """Each cell's first date as ISO, numeric dates in the column's order (`day_first`, from
    `numeric_order`; else `fallback`, the table's; else DAY_FIRST_DEFAULT); a time right after a date
    ("2024-03-05 09:14", "5 March 2024, 2:30 pm") gives the cell an ISO date-time too."""
    first_is_day = day_first if day_first is not None else fallback if fallback is not None else DAY_FIRST_DEFAULT
    decided = "column" if day_first is not None else "table" if fallback is not None else "default"
    dates: list[str | None] = []
    times: list[str | None] = []
    numeric = False
    for text in texts:
        found = next(iter(find_dates(text)), None) if text else None
        iso = resolve(found, first_is_day) if found else None
        numeric |= bool(iso and found.numeric)
        dates.append(iso)
        clock = _TIME.match(text[found.start + len(found.printed):]) if iso else None
        times.append(f"{iso} {_clock(clock)}" if clock and _clock(clock) else None)
    filled = sum(1 for t in texts if t)
    parsed = sum(1 for d in dates if d)
    with_time = any(times)
    datetimes = [t or (f"{d} 00:00:00" if d else None) for d, t in zip(dates, times)] if with_time else None
    order = ("day first" if first_is_day else "month first") if numeric else None
    return DateColumn(dates, datetimes, order, decided if numeric else None, parsed, filled)


def _clock(match: re.Match) -> str | None:
    hour, minute, second = int(match["h"]), int(match["m"]), int(match["s"] or 0)
    ampm = (match["ampm"] or "").lower().replace(".", "")
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return f"{hour:02d}:{minute:02d}:{second:02d}"


def excel_serial_dates(numbers: list[float | None]) -> list[str | None] | None:
    """ISO dates of a column of Excel serial day numbers, None when some number cannot be one."""
    import datetime as dt

    low, high = EXCEL_SERIAL_RANGE
    filled = [n for n in numbers if n is not None]
    if not filled or not all(float(n).is_integer() and low <= n <= high for n in filled):
        return None
    start = dt.date(1899, 12, 30)
    return [(start + dt.timedelta(days=int(n))).isoformat() if n is not None else None for n in numbers]


# --- values --------------------------------------------------------------------------------------

# A question is compared with every cell of every table (table choice, cell values): the same texts are folded
# again and again, ~1.3 million times a question on the records set, so each fold is kept for the next.
FOLD_CACHE_SIZE = 1 << 17


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def without_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def fold(text: str) -> str:
    """A value as it is meant, not as it is typed: accents, case, spaces and punctuation dropped
    ("Seán" -> "sean", "Dr. Patel" -> "drpatel", "E-Bikes" -> "ebikes"); "&" kept ("Groen & Co")."""
    return "".join(c for c in without_accents(text).lower() if c.isalnum() or c == "&")


def one_letter_apart(a: str, b: str) -> bool:
    """Whether two folded spellings differ by one letter added, dropped or changed ("cancelled" /
    "canceled"), both long enough for that to be a slip, and no digit involved ("band1" / "band2")."""
    if a == b or min(len(a), len(b)) < SPELLING_MIN_LENGTH or abs(len(a) - len(b)) > 1:
        return False
    if any(c.isdigit() for c in a + b):
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long = sorted((a, b), key=len)
    i = next((i for i, (x, y) in enumerate(zip(short, long)) if x != y), len(short))
    return short[i:] == long[i + 1:]


def variant_groups(counts: Counter, limit: int) -> list[list[str]] | None:
    """The column's values as groups of spellings of one value, the most written spelling first, groups
    by how often they are written; None when there are more than `limit` groups (not a category)."""
    by_fold: dict[str, Counter] = {}
    for value, count in counts.items():
        by_fold.setdefault(fold(value), Counter())[value] += count
    if len(by_fold) > limit:
        return None
    keys = sorted(by_fold, key=lambda k: -sum(by_fold[k].values()))
    merged: dict[str, Counter] = {}
    for key in keys:  # a rarer spelling one letter from a commoner one joins it
        home = next((k for k in merged if one_letter_apart(k, key)), key)
        merged.setdefault(home, Counter()).update(by_fold[key])
    groups = [[v for v, _ in spellings.most_common()] for spellings in merged.values()]
    return sorted(groups, key=lambda g: -sum(counts[v] for v in g))


def matching_values(text: str, groups: list[list[str]]) -> list[str]:
    """Every spelling of the value `text` names, from a column's groups: "kenworth" -> ["KENWORTH"],
    "sean" -> ["Seán"], "canceled" -> ["Cancelled", "Canceled"]; a spelling one letter off a cell only
    when none is the same; [] when it names none."""
    wanted = fold(text)
    return (next((group for group in groups if any(fold(v) == wanted for v in group)), [])
            or next((group for group in groups if any(one_letter_apart(fold(v), wanted) for v in group)), []))
