"""Which stored tables a question is about (issue 14; moved out of the pipeline by issue 26, item 2).

The words decide first (`select.select_tables` scores the file, header and cell words a question names,
beside the similarity of the question to each table's card); a question that names a file reads only
that file's tables; where no table reaches the bar, and the question surely asks for records, the model
picks among the best few by their headers (`choose`). The result, a `route.TableRoute`, also says whether
the rule parse accounts for the whole question on the chosen tables (the fast path) and which record's
one field the question asks for.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from core.annotations import choose
from core.annotations.linked import log_asked
from core.annotations.plan import counted_noun, known_words, names_the_rows
from core.annotations.query import parse_structured, unexplained_words
from core.annotations.route import TableRoute
from core.annotations.search import FactStore
from core.annotations.select import (Selection, file_words, named_files, names_a_value, record_lookup, select_tables,
                                     table_card)
from core.annotations.sql import ReadOnlyExecutor
from core.annotations.tables import TableStore
from core.config import Settings


class TableFinder:
    """`filenames`: the indexed documents' file names; `embed`: texts to unit vectors; `asks_records`: whether
    the rules are sure a question asks for records, the one case worth asking the model to choose a table."""

    def __init__(self, tables: TableStore, facts: FactStore, executor: ReadOnlyExecutor, filenames: Callable[[], list[str]],
                 embed: Callable[[list[str]], np.ndarray], llm, settings: Settings,
                 asks_records: Callable[[str], bool]) -> None:
        self.tables = tables
        self.facts = facts
        self.executor = executor
        self.filenames = filenames
        self.embed = embed
        self.llm = llm
        self.settings = settings
        self.asks_records = asks_records
        self._cards: tuple | None = None  # (table names, their cards' embeddings), embedded once per build

    def find(self, question: str, doc_ids: list[str] | None = None, with_model: bool = True) -> TableRoute | None:
        """The tables the question names (or, scoped by the user to `doc_ids`, the tables of those documents);
        None when no table is stored. `with_model`: the model chooses where the words could not."""
        tables = self.tables.tables()
        if not tables:
            return None
        s = self.settings
        parsed = parse_structured(question, self.facts.known_values(), self.facts.known_words())
        measured = {c.label for c in parsed.query.conditions if c.label and c.unit}  # "no wider than 1.2 m"
        if doc_ids:
            scoped = [t for t in tables if t.doc_id in doc_ids]
            ranked = sorted(select_tables(question, scoped, 0.0)[1], key=lambda x: -x.score)
            selected = (ranked or [Selection(t, 0.0) for t in scoped])[: s.table_max_selected]
            for selection in selected:
                selection.reasons.insert(0, "scoped to this document")
        else:
            # A question naming a file ("the Orlen invoice") is about that file: its tables, or (it has
            # none) its text; never another file's table with a "total" column. Files sharing a word of
            # the name stay candidates ("orders" names orders.csv, and more_orders.csv may hold the value).
            valued = names_a_value(question, tables)
            named = [f for f in named_files(question, self.filenames()) if not file_words(f) <= valued]
            if named:
                shared = set().union(*(file_words(f) for f in named))
                tables = [t for t in tables if t.filename in named or file_words(t.filename) & shared]
            selected, ranked = select_tables(question, tables, s.table_min_score, s.table_max_selected,
                                             s.table_close, measured=measured,
                                             similarity=self._similarities(question, tables),
                                             weight=s.table_similarity_weight, floor=s.table_similarity_floor)
        choice = None
        if with_model and s.table_choice_model and not doc_ids:
            selected, choice = self._choose(question, selected, ranked)
        if not selected:
            return TableRoute([], ranked, None, choice=choice)
        if (log := log_asked(question, selected[0], tables, self.executor)) is not None:
            selected = [log, selected[0]]  # the log answers; the register it links to holds the rest
        accounted = set().union(*(x.file_words for x in selected))
        unexplained = unexplained_words(question, parsed, accounted)
        if parsed.group_by and parsed.aggregate == "count" and (noun := counted_noun(question)) \
                and not any(names_the_rows(noun, known_words(x.table)) for x in selected):
            unexplained.append(noun)  # "Number of no-shows per clinician" counts some rows: which, the plan reads
        route = TableRoute(selected, ranked, parsed, unexplained, choice=choice)
        # the record of a selected document, even when two of its other tables outscored it
        documents = {x.table.doc_id for x in selected}
        if any(x.table.kind == "records" for x in selected):  # and the one record whose value the question names
            documents |= {x.table.doc_id for x in ranked if x.table.kind == "record"
                          and any(r.startswith("names values") for r in x.reasons)}
        route.lookup = record_lookup(question, [x for x in ranked if x.table.doc_id in documents])
        return route

    def _choose(self, question: str, selected: list[Selection],
                ranked: list[Selection]) -> tuple[list, choose.Choice | None]:
        """(the selection, the model's choice or None when it was not asked). Only a question the rules
        are sure asks for records is worth the call: a summary or a rule goes to text anyway, and so does
        an unsure question that selected no table (question_kind.classify), which the call would send
        to a table: the model names a table for almost any question."""
        s = self.settings
        doubt = choose.unsure(selected, ranked, floor=s.table_choice_floor, max_candidates=s.table_choice_candidates)
        if doubt is None or not self.asks_records(question):
            return selected, None
        choice = choose.choose(question, doubt, self.llm, max_tokens=s.table_choice_max_tokens,
                               max_values=s.table_choice_values)
        if choice.table is None:
            return [], choice
        choice.table.reasons.append("chosen by the model: no table reached the bar")
        return [choice.table], choice

    def _similarities(self, question: str, tables: list) -> dict[str, float]:
        """Cosine similarity of the question and each table's card, the cards embedded once per build."""
        if not self.settings.table_similarity_weight:
            return {}
        stamp = tuple(t.name for t in tables)
        if self._cards is None or self._cards[0] != stamp:
            self._cards = (stamp, self.embed([table_card(t) for t in tables]))
        vector = self.embed([question])[0]
        return {name: float(v) for name, v in zip(stamp, self._cards[1] @ vector)}
