"""Document summaries in seed 002's schema (document_type, summary, key_topics, use_for), made at
ingest without the LLM (it is too slow on 2 cores to read every file): the type from the file
name and the first page, the summary from the first informative sentences, the topics from the
most frequent distinctive words. They are embedded, so a question can be routed to documents."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass

from core.ingest.document import LoadedDocument
from core.store.keyword import STOPWORDS

_TYPES = [  # (pattern over file name and first page, document type, use for)
    (r"\b10-?k\b|annual report", "Annual report (10-K)", "yearly financial results, risks, business overview"),
    (r"\b10-?q\b|quarterly report", "Quarterly report (10-Q)", "quarterly financial results and changes"),
    (r"\b8-?k\b", "Current report (8-K)", "announced events and press releases"),
    (r"earnings|results release", "Earnings release", "headline results for a period"),
    (r"\binvoice|rechnung|faktura|factuur|facture", "Invoice", "amounts, dates and line items billed"),
    (r"\breceipt", "Receipt", "purchases: items, prices, totals, vendors"),
    (r"spec(ification)?s?\b|datasheet|data sheet", "Datasheet", "technical specifications and dimensions"),
    (r"handbook|manual|guide|instructions", "Manual", "how-to, procedures, warranty and safety"),
    (r"\borders?\b", "Order records", "order counts, totals per customer or period"),
]
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


def summarize(document: LoadedDocument, category_hints: list[str], max_chars: int = 300) -> DocumentSummary:
    first = document.sections[0].text if document.sections else ""
    probe = f"{document.filename} {first[:2000]}".lower()
    document_type, use_for = next(
        ((kind, use) for pattern, kind, use in _TYPES if re.search(pattern, probe)),
        ("Spreadsheet" if document.kind in ("xlsx", "csv") else "Document",
         "figures and records" if "data-heavy" in category_hints else "explanations and reference text"),
    )
    return DocumentSummary(document_type, _lead(document, max_chars), _topics(document), use_for)


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
