"""What a loader produces and what the chunker consumes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.ingest.tables import TableBlock


class IngestError(Exception):
    """A file that cannot be ingested. The message is shown to the user as is."""


@dataclass
class Section:
    """One addressable part of a document: a PDF page, a sheet, or a whole text file.

    Table sections hold one row per line (`row_numbers[i]` is the 1-based row of line i in the
    sheet or CSV), so the chunker never splits a row and citations can name the rows.
    """

    text: str
    page: int | None = None
    sheet: str | None = None
    is_table: bool = False
    row_numbers: list[int] | None = None
    table: "TableBlock | None" = None  # the parsed table, for structured facts
    # Lines every chunk of this section carries above its own (a PDF table's caption, unit and column
    # headers), so a chunk holding only some rows still says what each cell is.
    head: list[str] | None = None


@dataclass
class LoadedDocument:
    filename: str
    kind: str  # pdf | xlsx | csv | txt | md
    sections: list[Section]
    page_count: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        stem = self.filename.rsplit(".", 1)[0]
        return stem.replace("_", " ").strip()

    @property
    def text_chars(self) -> int:
        return sum(len(s.text) for s in self.sections)
