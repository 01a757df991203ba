"""What an empty chat offers a new user: a sentence on what the knowledge base holds, and a few
example questions built from the user's own documents (their file names, table columns and
topics), so the first question is one the documents can answer. Pure functions: the Workspace
gathers the facts about each document, these only phrase them."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePath

# Column kinds the fact extractor gives measured quantities; a currency sums, the others compare.
MEASURE_KINDS = ("currency", "power", "mass", "length", "volume", "area", "percent", "duration")
# Column names that hold amounts when the extractor left their kind open (a CSV's plain numbers).
AMOUNT_WORDS = ("total", "amount", "price", "cost", "revenue", "sales", "value", "quantity", "qty", "paid")
# Column names that group records: "per customer", "which model".
GROUP_WORDS = ("customer", "vendor", "supplier", "client", "product", "category", "region", "country",
               "department", "model", "maker", "manufacturer", "name", "nationality", "team", "type")
KIND_NAMES = {"pdf": "PDF", "xlsx": "spreadsheet", "csv": "CSV table", "txt": "text file", "md": "text file",
              "image": "scanned image"}


@dataclass
class DocumentFacts:
    filename: str
    kind: str  # pdf | xlsx | csv | txt | md | image
    document_type: str = ""  # "Manual", "Receipt", ... from the document summary
    topics: list[str] = field(default_factory=list)  # the summary's key topics, most distinctive first
    columns: dict[str, set[str | None]] = field(default_factory=dict)  # stored column label -> kinds


def describe_knowledge_base(documents: list[DocumentFacts]) -> str:
    """ "5 documents: 3 PDFs, 1 spreadsheet and 1 CSV table." """
    if not documents:
        return "The knowledge base is empty."
    kinds = Counter(KIND_NAMES.get(d.kind, d.kind or "file") for d in documents)
    parts = [f"{n} {name}{'s' * (n != 1)}" for name, n in kinds.most_common()]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    total = len(documents)
    return f"{total} document{'s' * (total != 1)}: {listed}."


def _columns_with(columns: dict[str, set[str | None]], kinds=(), words=()) -> list[str]:
    """Columns of the given kinds, then columns named with the given words, each in the order of
    `kinds` / `words` (the first is the most telling)."""
    def rank(options, found):
        return min(options.index(x) for x in found if x in options)

    by_kind = sorted((c for c in columns if set(kinds) & set(columns[c])), key=lambda c: rank(kinds, columns[c]))
    by_word = sorted((c for c in columns if c not in by_kind and set(words) & set(c.split())),
                     key=lambda c: rank(words, c.split()))
    return by_kind + by_word


def question_for(document: DocumentFacts) -> str:
    """One question this document can answer, phrased from what it holds."""
    name = document.filename
    measures = _columns_with(document.columns, kinds=MEASURE_KINDS)
    amounts = _columns_with(document.columns, words=AMOUNT_WORDS)
    groups = [c for c in _columns_with(document.columns, words=GROUP_WORDS) if c not in measures + amounts]
    summable = amounts + [c for c in measures if "currency" in document.columns[c] and c not in amounts]
    if summable and groups:
        total = summable[0] if summable[0].startswith("total") else f"total {summable[0]}"
        return f"What is the {total} per {groups[0]} in {name}?"
    if measures and groups:
        return f"Which {groups[0]} has the highest {measures[0]} in {name}?"
    if summable or measures:
        return f"What is the highest {(summable or measures)[0]} in {name}?"
    title_words = set(PurePath(name).stem.lower().replace("_", " ").replace("-", " ").split())
    labels = [c for c in document.columns if c != "heading" and c not in title_words]
    if labels:
        return f"What is the {labels[0]} in {name}?"
    topics = [t for t in document.topics if t.lower() not in title_words]
    if topics:
        return f"What does {name} say about {topics[0]}?"
    return f"What is {name} about?"


def example_questions(documents: list[DocumentFacts], limit: int = 4) -> list[str]:
    """Up to `limit` questions, one a document, every kind of document before a second of the same
    kind (fifty receipts give one receipt question, not four)."""
    by_type: dict[str, list[DocumentFacts]] = {}
    for document in documents:
        by_type.setdefault(document.document_type or document.kind, []).append(document)
    chosen: list[str] = []
    for round_ in range(max((len(v) for v in by_type.values()), default=0)):
        for group in by_type.values():
            if round_ < len(group) and len(chosen) < limit:
                question = question_for(group[round_])
                if question not in chosen:
                    chosen.append(question)
    return chosen
