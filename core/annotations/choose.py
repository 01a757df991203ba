"""The model chooses a table where the words named none well enough (issue 22).

Table selection (core.annotations.select) scores what a question names. Office users often name
neither file nor header ("How many books came back late?" names a column word of the catalogue and
of the loans log, and no value), and then no table reaches the bar and the text route answers a
question about records. Only then one short call under a JSON schema whose only values are the
candidates' numbers reads each candidate's headers and a few values and picks the table whose rows
answer it, or none. Where a table did reach the bar, the rules' choice stands: asked also between two
close tables, the model overrode right choices as often as wrong ones (docs/tables.md, session 11).
"""
from __future__ import annotations

from dataclasses import dataclass

from core.annotations.select import Selection
from core.annotations.tables import TableInfo, is_twin


@dataclass(frozen=True)
class Unsure:
    """Why the words could not choose: the candidates the model reads, best first."""
    candidates: list
    why: str


def unsure(selected: list[Selection], ranked: list[Selection], *, floor: float, max_candidates: int) -> Unsure | None:
    """The candidates when no table reached the bar though one scored at least `floor` (what any
    table shares with any question scores less): one table per file, best first."""
    if selected or not ranked or ranked[0].table.kind not in ("rows", "measures") or ranked[0].score < floor:
        return None  # (a document's own tables, an invoice's fields or line items, are chosen by naming it)
    candidates, files = [], set()
    for s in ranked:  # one table a file: two sheets of one workbook are its query's to join
        if s.table.kind in ("rows", "measures") and s.table.filename not in files:
            candidates.append(s)
            files.add(s.table.filename)
    return Unsure(candidates[:max_candidates], f"no table reached the bar (best {ranked[0].score:.1f})")


def card(table: TableInfo, max_values: int) -> str:
    """A table as the model reads it: file (and sheet), its printed headers, and a few of its values."""
    printed = [" ".join(table.printed.get(c, c).split()) for c in table.columns if not is_twin(table, c)]
    # ("Power [hp] in W" restates "Power [hp]" in base units)
    headers = [h for h in printed if not any(h.startswith(f"{other} in ") for other in printed if other != h)]
    # a value or two of each categorical column, the fewest-valued first: "Completed", "DNA" say what rows are
    columns = sorted(table.categories.values(), key=len)
    values = [" ".join(groups[i][0].split()) for i in range(2) for groups in columns if i < len(groups)][:max_values]
    name = table.filename + (f" [{table.sheet}]" if table.sheet else "")
    return f"{name}: {', '.join(headers)}" + (f" (values: {', '.join(values)})" if values else "")


PROMPT = ("Which table has the rows that answer the question? Reply with its number, or 0 if none of them "
          "records what it asks about.\n{cards}\nQuestion: {question}")


@dataclass(frozen=True)
class Choice:
    table: Selection | None  # None: the model read none of the candidates as recording it
    why: str  # why the model was asked and what it chose, for the trace
    tokens: dict  # {"prompt", "completion"} the call spent


def choose(question: str, doubt: Unsure, llm, *, max_tokens: int, max_values: int) -> Choice:
    """The model's choice among the candidates. A call that fails, or a reply outside them, leaves the
    rules' answer (no table), saying so."""
    from core.llm.base import LLMError

    cards = "\n".join(f"{n}. {card(s.table, max_values)}" for n, s in enumerate(doubt.candidates, start=1))
    schema = {"type": "object", "properties": {"table": {"type": "integer", "enum": list(range(len(doubt.candidates) + 1))}},
              "required": ["table"], "additionalProperties": False}
    try:
        value, completion = llm.complete_json(
            [{"role": "user", "content": PROMPT.format(cards=cards, question=question.strip())}],
            schema, max_tokens=max_tokens, temperature=0.0)
    except LLMError as exc:
        spent = getattr(exc, "completion", None)
        return Choice(None, f"{doubt.why}; the model could not choose ({exc}), so no table", _tokens(spent))
    number = value.get("table")
    if not isinstance(number, int) or not 0 <= number <= len(doubt.candidates):
        return Choice(None, f"{doubt.why}; the model answered outside the candidates, so no table", _tokens(completion))
    if number == 0:
        return Choice(None, f"{doubt.why}; the model read none of them as recording it", _tokens(completion))
    chosen = doubt.candidates[number - 1]
    return Choice(chosen, f"{doubt.why}; the model chose {chosen.table.filename}", _tokens(completion))


def _tokens(completion) -> dict:
    if completion is None:
        return {"prompt": 0, "completion": 0}
    return {"prompt": completion.prompt_tokens or 0, "completion": completion.completion_tokens or 0}
