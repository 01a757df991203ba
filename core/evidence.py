"""The evidence view: what a citation points at, as the user would check it in the file. A PDF page is
drawn as an image (pdfium, on the CPU, offline) with the quoted words highlighted by their character
boxes; a sheet's or CSV's cited rows are shown among their neighbours, marked.

The words are matched as word sequences, not as characters: a quote copies a table row as
"Weight | 21.5 kg" where the page prints "Weight: 21.5 kg" across a line break. The longest runs of
the quote's words found on the page are highlighted, and the view says when none was.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

_WORD = re.compile(r"\w+")
MIN_RUN_WORDS = 3  # a run of fewer quote words ("the", "of 2024") would light up unrelated text
HIGHLIGHT = (255, 214, 0, 110)  # translucent yellow, RGBA
OUTLINE = (214, 150, 0, 255)
COVER = (60, 60, 60, 255)  # opaque: personal data hidden on the page


@dataclass
class PageImage:
    png: bytes
    page: int  # 1-based, as cited
    found: bool  # whether any quoted words were found, and so highlighted
    width: int = 0
    height: int = 0


@dataclass
class CitedRows:
    columns: list[str]
    rows: list[dict] = field(default_factory=list)  # each with the row's cells, its "Row" and "cited"


def first_page(page: str | int | None) -> int | None:
    """The page a citation opens on: "3" and "3-4" open page 3."""
    found = re.match(r"\s*(\d+)", str(page or ""))
    return int(found.group(1)) if found else None


def row_span(rows: str | None) -> tuple[int, int] | None:
    """A citation's rows as (first, last): "4-9" -> (4, 9), "5" -> (5, 5); None when it names none."""
    numbers = [int(n) for n in re.findall(r"\d+", rows or "")]
    return (min(numbers), max(numbers)) if numbers else None


def matched_spans(page_text: str, phrase: str, min_run: int = MIN_RUN_WORDS) -> list[tuple[int, int]]:
    """Character spans of `page_text` that print `phrase`, compared word by word, case folded: each
    longest run of consecutive phrase words found on the page (at least `min_run` words, or the whole
    phrase when it is shorter), in order."""
    page_words = [(m.group(0).casefold(), m.start(), m.end()) for m in _WORD.finditer(page_text)]
    wanted = [w.casefold() for w in _WORD.findall(phrase)]
    if not wanted or not page_words:
        return []
    tokens = [w for w, _, _ in page_words]
    shortest = min(min_run, len(wanted))
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(wanted):
        best = None  # (length, page position) of the longest run starting at wanted[i]
        for start in (p for p, token in enumerate(tokens) if token == wanted[i]):
            length = 1
            while (i + length < len(wanted) and start + length < len(tokens)
                   and tokens[start + length] == wanted[i + length]):
                length += 1
            if best is None or length > best[0]:
                best = (length, start)
        if best is not None and best[0] >= shortest:
            length, start = best
            spans.append((page_words[start][1], page_words[start + length - 1][2]))
            i += length
        else:
            i += 1
    return spans


def page_image(pdf_path: Path, page: int, phrases: list[str], scale: float,
               hide_personal_data: bool = False) -> PageImage | None:
    """Page `page` (1-based) of the PDF drawn at `scale` (1.0: 72 dpi), each phrase's words found on it
    highlighted, and with `hide_personal_data` each e-mail address, phone or account number covered. None
    when the file or the page cannot be read."""
    from core.safety.pii import personal_data_spans

    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    try:
        document = pdfium.PdfDocument(str(pdf_path))
    except (pdfium.PdfiumError, OSError):
        return None
    try:
        if not 1 <= page <= len(document):
            return None
        pdf_page = document[page - 1]
        text_page = pdf_page.get_textpage()
        text = text_page.get_text_range()
        _, height = pdf_page.get_size()
        image = pdf_page.render(scale=scale).to_pil().convert("RGBA")
        overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        def mark(start: int, end: int, **style) -> bool:
            for n in range(text_page.count_rects(start, end - start)):
                left, bottom, right, top = text_page.get_rect(n)
                # PDF points from the bottom left; the image's pixels from the top left
                draw.rectangle([left * scale - 1, (height - top) * scale - 1,
                                right * scale + 1, (height - bottom) * scale + 1], **style)
            return end > start

        found = False
        for phrase in phrases:
            for start, end in matched_spans(text, phrase):
                found = mark(start, end, fill=HIGHLIGHT, outline=OUTLINE) or found
        for start, end in personal_data_spans(text) if hide_personal_data else []:
            mark(start, end, fill=COVER)
        drawn = Image.alpha_composite(image, overlay).convert("RGB")
        buffer = io.BytesIO()
        drawn.save(buffer, format="PNG", optimize=False)
        return PageImage(buffer.getvalue(), page, found, *drawn.size)
    finally:
        document.close()


def cited_rows(facts: list, sheet: str | None, span: tuple[int, int], context: int,
               hide_personal_data: bool = False) -> CitedRows:
    """The rows of a sheet (or CSV) from `context` rows before the cited span to `context` after, each
    marked cited or not, personal data in their cells hidden if asked. `facts` are the document's stored row
    facts (core.annotations.search.FactRow)."""
    from core.safety.pii import redact_pii

    first, last = span
    chosen = sorted((f for f in facts if f.kind == "row" and f.sheet == sheet and f.row_index is not None
                     and first - context <= f.row_index <= last + context), key=lambda f: f.row_index)
    columns: list[str] = []
    rows = []
    for fact in chosen:
        columns += [c for c in fact.properties if c not in columns]
        cells = {k: redact_pii(v).text if hide_personal_data else v for k, v in fact.properties.items()}
        rows.append({"Row": fact.row_index, **cells, "cited": first <= fact.row_index <= last})
    return CitedRows(columns, rows)
