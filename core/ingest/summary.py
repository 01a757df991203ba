"""Document summaries (document_type, summary, key_topics, use_for), made at
ingest without the LLM (it is too slow on 2 cores to read every file): the type from the file
name and the first page, the summary from the first informative sentences, the topics from the
most frequent distinctive words. They are embedded, so a question can be routed to documents.

Long documents also get section summaries (macro-chunks): consecutive pages of about
`macro_chunk_tokens`, each summarized by the words that set it apart from the rest of the document
and its first prose, for summary-then-segment search."""
from __future__ import annotations

import re
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from core.ingest.document import LoadedDocument
from core.profiles import DocumentProfile, DocumentType
from core.store.keyword import STOPWORDS

# Kinds of any organisation's documents, tried after those of the switched-on domain profiles. A report,
# release or datasheet prints totals and dates but bills nothing: not a record (core.ingest.extract).
# (Not "Order records" or "Manual": a receipt's "ORDER NO" or "instructions" line would read as one.)
_TYPES = (
    DocumentType(r"annual report", "Annual report", "yearly results, risks, business overview", may_hold_records=False),
    DocumentType(r"quarterly report", "Quarterly report", "quarterly results and changes", may_hold_records=False),
    DocumentType(r"earnings|results release", "Earnings release", "headline results for a period",
                 may_hold_records=False),
    DocumentType(r"\binvoice|rechnung|faktura|factuur|facture", "Invoice", "amounts, dates and line items billed"),
    DocumentType(r"\breceipt", "Receipt", "purchases: items, prices, totals, vendors"),
    DocumentType(r"spec(ification)?s?\b|datasheet|data sheet", "Datasheet", "technical specifications and dimensions",
                 may_hold_records=False),
    DocumentType(r"handbook|manual|guide|instructions", "Manual", "how-to, procedures, warranty and safety"),
    DocumentType(r"\borders?\b", "Order records", "order counts, totals per customer or period"),
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_GENERIC = {"which", "there", "these", "those", "their", "other", "about", "would", "could", "should", "also",
            "than", "then", "into", "such", "more", "most", "only", "over", "under", "your", "have", "been",
            "they", "page", "table", "contents", "total", "including", "within", "million", "thousand"}
_WORD = re.compile(r"[^\W\d_]{4,}")


@dataclass
class DocumentSummary:
    document_type: str
    summary: str
    key_topics: list[str]
    use_for: str

    def text(self, title: str) -> str:
        """What is embedded for routing: title, type, summary and topics."""
        return f"{title}. {self.document_type}. {self.summary} Topics: {', '.join(self.key_topics)}."

    def to_dict(self) -> dict:
        return asdict(self)


def document_type(document: LoadedDocument, profiles: Sequence[DocumentProfile] = ()) -> DocumentType | None:
    """The kind of document its file name, else its first page, says it is; None when neither says."""
    types = [t for p in profiles for t in p.document_types] + list(_TYPES)
    first = document.sections[0].text if document.sections else ""
    # The file name says what a document is more surely than its first page, which may mention other
    # kinds ("keep your invoice as proof of purchase" in a handbook): it is tried first, with its
    # "_" read as a space so word boundaries hold ("orders_2024.csv"); then the first page, where
    # the earliest match wins (a title comes before the text that mentions other documents).
    name = re.sub(r"[_.]+", " ", document.filename.lower())
    page = first[:2000].lower()
    by_name = next((t for t in types if re.search(t.pattern, name)), None)
    if by_name is not None:
        return by_name
    on_page = [(m.start(), i) for i, t in enumerate(types) if (m := re.search(t.pattern, page))]
    return types[min(on_page)[1]] if on_page else None


def summarize(document: LoadedDocument, category_hints: list[str], max_chars: int = 300,
              profiles: Sequence[DocumentProfile] = ()) -> DocumentSummary:
    kind = document_type(document, profiles)
    name, use_for = (kind.name, kind.use_for) if kind else (
        "Spreadsheet" if document.kind in ("xlsx", "csv") else "Document",
        "figures and records" if "data-heavy" in category_hints else "explanations and reference text",
    )
    return DocumentSummary(name, _lead(document, max_chars), _topics(document), use_for)


def _lead(document: LoadedDocument, max_chars: int) -> str:
    """The first sentences that read as prose (8+ words, mostly letters), up to max_chars."""
    chosen: list[str] = []
    for section in document.sections[:3]:
        for sentence in _SENTENCE.split(" ".join(section.text.split())):
            letters = sum(ch.isalpha() for ch in sentence)
            if len(sentence.split()) >= 8 and letters > 0.6 * len(sentence):
                chosen.append(sentence.strip())
                if sum(len(s) for s in chosen) >= max_chars:
                    return " ".join(chosen)[:max_chars].rstrip() + "…"
    if not chosen and document.sections:  # a table: say what its columns are
        return " ".join(document.sections[0].text.split("\n")[:2])[:max_chars]
    return " ".join(chosen)


def _topics(document: LoadedDocument, count: int = 8) -> list[str]:
    words = Counter(
        w.lower() for section in document.sections[:50] for w in _WORD.findall(section.text)
        if w.lower() not in STOPWORDS and w.lower() not in _GENERIC
    )
    return [w for w, _ in words.most_common(count)]


@dataclass
class SectionSummary:
    page_start: int
    page_end: int
    text: str

    @property
    def pages(self) -> str:
        return str(self.page_start) if self.page_start == self.page_end else f"{self.page_start}-{self.page_end}"


def section_summaries(document: LoadedDocument, macro_chunk_tokens: int, max_chars: int = 300) -> list[SectionSummary]:
    """Consecutive pages of about `macro_chunk_tokens` (words x 1.3), each summarized."""
    spans: list[list] = []
    tokens = macro_chunk_tokens  # start a new span on the first page
    for section in document.sections:
        if section.page is None:
            continue
        if tokens >= macro_chunk_tokens:
            spans.append([])
            tokens = 0
        spans[-1].append(section)
        tokens += int(len(section.text.split()) * 1.3)
    if len(spans) < 2:
        return []  # one span is the whole document: its summary already says it
    counts = [Counter(w.lower() for s in span for w in _WORD.findall(s.text)) for span in spans]
    spread = Counter(w for c in counts for w in c)  # in how many spans each word occurs
    summaries = []
    for span, words in zip(spans, counts):
        distinctive = sorted(
            (w for w in words if w not in STOPWORDS and w not in _GENERIC),
            key=lambda w: -words[w] * math.log(1 + len(spans) / spread[w]),
        )[:12]
        lead = _lead(LoadedDocument(document.filename, document.kind, span), max_chars)
        pages = f"{span[0].page}-{span[-1].page}"
        summaries.append(SectionSummary(span[0].page, span[-1].page,
                                        f"{document.title}, pages {pages}. Topics: {', '.join(distinctive)}. {lead}"))
    return summaries
