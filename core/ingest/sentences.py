"""Where a sentence ends: at a full stop, question or exclamation mark before the next word, but not
after an abbreviation ("the U.S. Tax Act", "Dr. Patel", "No. 4", "Acme Inc. reported"). A chunk cut
after "the U.S." gave the reader half a sentence, and its answer was "the effects of the U.S."."""
from __future__ import annotations

import re

from core.annotations.conditions import MONTH_ABBREVIATIONS

# Letters with full stops ("U.S.", "e.g.", "a.m."), and short words written with one before a name or
# a figure. "etc." is left out: it ends sentences as often as not.
_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:(?:[A-Za-z]\.){2,}|(?:Mr|Mrs|Ms|Dr|Prof|St|No|Nos|Inc|Co|Corp|Ltd|Bros|vs|approx|Fig|Ref|Vol|"
    + "|".join(m.capitalize() for m in MONTH_ABBREVIATIONS) + r")\.)$")


def ends_with_abbreviation(text: str) -> bool:
    return bool(_ABBREVIATION.search(text.rstrip()))


def split_sentences(text: str, boundary: re.Pattern) -> list[str]:
    """`text` split at `boundary` (a pattern that matches between sentences), with each piece that ends in
    an abbreviation joined to the next one."""
    pieces: list[str] = []
    start = 0
    for match in boundary.finditer(text):
        piece = text[start:match.start()]
        if ends_with_abbreviation(piece):
            continue  # the sentence goes on past this boundary
        pieces.append(piece)
        start = match.end()
    pieces.append(text[start:])
    return [p for p in pieces if p]
