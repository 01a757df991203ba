"""What a question states, read by rules: its periods (years, quarters, months), other numbers, the
values it names (cells of the stored tables, and proper names) and the words of what it measures.

A follow-up is rewritten by replacing one of these in the previous question, and a model's rewrite is
checked against them: each one the user did not replace must still be there (core.conversation.follow_up).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable

from core.annotations.conditions import YEAR_DIGITS, MONTH_ABBREVIATIONS, MONTHS, QUARTER_ORDINAL, QUARTER_SHORT

# Lower-cased texts -> the stored columns (normalized labels) whose text cells hold each of them;
# texts no cell holds are left out. How "Corrie Hill" is known to be a site, as "Hartwell" is.
ValueColumns = Callable[[list[str]], dict[str, set[str]]]

YEAR, QUARTER, MONTH, NUMBER, VALUE = "year", "quarter", "month", "number", "value"
PERIODS = (YEAR, QUARTER, MONTH)
# A stored value is looked up by the runs of up to this many words ("Corrie Hill", "St Anne's Road
# Depot"); longer cells are descriptions, not names a question repeats.
MAX_NAME_WORDS = 4

_YEAR = re.compile(rf"(?<!\d){YEAR_DIGITS}(?![\d.,]\d|\d)")  # also the digits of "FY2023"
# "over 2000", "£2019": an amount, not a year.
_AMOUNT_BEFORE = re.compile(r"(?:over|above|under|below|than|least|most|exceeding|[<>=$£€¥])\s*$", re.I)
_QUARTER = re.compile(rf"\b(?:{QUARTER_SHORT}|{QUARTER_ORDINAL}\s+quarter)\b", re.I)
# Capitalised only: "may" is more often a verb than a month.
_MONTH_NAME = re.compile(rf"\b(?:{'|'.join(m.capitalize() for m in (*MONTHS, *MONTH_ABBREVIATIONS))})\b")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:\s*(?:%|[a-zA-Z]{1,3}\b))?")
# A word: letters or digits, with inner apostrophes, dots and hyphens ("Hartwell's", "1.2", "e-bikes").
_WORD = re.compile(r"[^\W_](?:[\w&-]|['’.](?=[^\W_]))*")
POSSESSIVE = re.compile(r"['’]s$", re.I)
# Words that carry no condition: question and command words, auxiliaries, pronouns, prepositions,
# articles, and the cues of a follow-up. A capitalised one is no name ("What", "List").
STOPWORDS = frozenset("""
a an the and or but also of in on at for from to by with within without into over under per than then
what which who whom whose when where why how much many is are was were be been being do does did done
has have had can could will would should shall may might must i me my we us our you your they them their
he him his she her
it its this that these those there here one ones please about same any all every each some no not only just
list show give tell find name count compare get see let make
as so if vs versus between during since until before after up down out off
""".split())
# What is computed over the rows: "and the average?" replaces the previous question's one of these.
_AGGREGATES = frozenset("total sum average mean median maximum max minimum min highest lowest largest smallest "
                        "biggest most least".split())


@dataclass(frozen=True)
class Span:
    text: str  # as written in the question (a name without its possessive 's)
    kind: str  # YEAR | QUARTER | MONTH | NUMBER | VALUE
    start: int
    end: int
    columns: frozenset[str] = frozenset()  # for a VALUE: the stored columns holding it (empty: a proper name)

    @property
    def key(self) -> str:
        return fold(self.text)


@dataclass
class Statement:
    """The conditions of one question, and the words of what it asks for."""
    text: str
    periods: list[Span] = field(default_factory=list)
    numbers: list[Span] = field(default_factory=list)
    values: list[Span] = field(default_factory=list)
    measure: list[str] = field(default_factory=list)  # the other words that are no stopword, as written

    @property
    def conditions(self) -> list[Span]:
        return sorted(self.periods + self.numbers + self.values, key=lambda s: s.start)


def fold(text: str) -> str:
    """Lower case without accents or extra spaces: how a name is compared."""
    text = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).lower().split())


def stem(word: str) -> str:
    """"bills" and "bill", "sales" and "sale" compare equal."""
    word = fold(word)
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def is_aggregate(word: str) -> bool:
    return stem(word) in _AGGREGATES


# Words ending in "est" that compare nothing.
_NOT_SUPERLATIVE = frozenset("interest request guest test contest forest harvest honest modest west rest protest "
                             "digest invest arrest suggest manifest chest nest quest vest pest crest inquest conquest "
                             "behest".split())


def is_superlative(word: str) -> bool:
    """"busiest", "quietest", "best": a superlative ("and the quietest?" replaces "the busiest")."""
    word = fold(word)
    return word in ("best", "worst") or (len(word) > 4 and word.endswith("est") and word not in _NOT_SUPERLATIVE)


def words(text: str) -> list[re.Match]:
    return list(_WORD.finditer(text))


def period_spans(text: str) -> list[Span]:
    spans = [Span(m.group(0), YEAR, m.start(), m.end()) for m in _YEAR.finditer(text)
             if not _AMOUNT_BEFORE.search(text[:m.start()])]
    spans += [Span(m.group(0), QUARTER, m.start(), m.end()) for m in _QUARTER.finditer(text)]
    spans += [Span(m.group(0), MONTH, m.start(), m.end()) for m in _MONTH_NAME.finditer(text)
              if not (m.group(0) == "May" and _starts_sentence(text, m.start()))]
    return sorted(spans, key=lambda s: s.start)


def _starts_sentence(text: str, start: int) -> bool:
    return not text[:start].strip() or text[:start].rstrip()[-1] in ".?!"


def number_spans(text: str, taken: list[Span]) -> list[Span]:
    """Numbers other than the periods ("over 2,000", "1.2 m", "15%")."""
    return [Span(m.group(0).strip(), NUMBER, m.start(), m.start() + len(m.group(0).strip()))
            for m in _NUMBER.finditer(text) if not _overlaps(m.start(), m.end(), taken)]


def value_spans(text: str, taken: list[Span], value_columns: ValueColumns | None, sentence: bool = True) -> list[Span]:
    """The values a question names: runs of words that are whole stored cells (longest first), then
    runs of capitalised words that are no stopword, period or (in a `sentence`) its capitalised first
    word (proper names)."""
    tokens = [m for m in words(text) if not _overlaps(m.start(), m.end(), taken)]
    found: list[Span] = []
    if value_columns is not None:
        runs = {}
        for i in range(len(tokens)):
            for n in range(min(MAX_NAME_WORDS, len(tokens) - i), 0, -1):
                run = tokens[i:i + n]
                if n == 1 and fold(run[0].group(0)) in STOPWORDS:
                    continue
                if any(b.start() - a.end() > 2 for a, b in zip(run, run[1:])):  # words apart, not a run
                    continue
                start, end = run[0].start(), _name_end(run[-1])
                runs[(start, end)] = text[start:end]
        known = value_columns(sorted({fold(t) for t in runs.values()})) if runs else {}
        for (start, end), name in sorted(runs.items(), key=lambda r: -(r[0][1] - r[0][0])):
            if fold(name) in known and not _overlaps(start, end, found):
                found.append(Span(name, VALUE, start, end, frozenset(known[fold(name)])))
    run: list[re.Match] = []
    for token in tokens + [None]:
        if token is not None and _is_name_word(text, token, run, sentence) and not _overlaps(
                token.start(), token.end(), found):
            run.append(token)
            continue
        while run and fold(run[-1].group(0)) in STOPWORDS:  # "Bank of" is no name; "Bank of England" is
            run.pop()
        if run:
            start, end = run[0].start(), _name_end(run[-1])
            found.append(Span(text[start:end], VALUE, start, end))
        run = []
    return sorted(found, key=lambda s: s.start)


# Lower-case words inside a name ("Bank of England"); not "and", which lists names ("Ashgate and Kingsmoor").
_NAME_JOINERS = frozenset({"of", "de", "la", "le", "von", "van"})


def _is_name_word(text: str, token: re.Match, run: list, sentence: bool) -> bool:
    word = token.group(0)
    if run and fold(word) in _NAME_JOINERS and run[-1].end() == token.start() - 1:
        return True  # inside a name: "Bank of England"
    if not word[0].isupper() or fold(POSSESSIVE.sub("", word)) in STOPWORDS or is_aggregate(word):
        return False
    if run and token.start() - run[-1].end() > 1:
        return False
    # A sentence's first word is capitalised anyway: a name only when it is possessive ("Hartwell's bill").
    return not (sentence and _starts_sentence(text, token.start())) or bool(POSSESSIVE.search(word))


def _name_end(token: re.Match) -> int:
    possessive = POSSESSIVE.search(token.group(0))
    return token.end() - (len(possessive.group(0)) if possessive else 0)


def _overlaps(start: int, end: int, spans) -> bool:
    return any(start < s.end and s.start < end for s in spans)


def read_statement(text: str, value_columns: ValueColumns | None = None) -> Statement:
    periods = period_spans(text)
    numbers = number_spans(text, periods)
    values = value_spans(text, periods + numbers, value_columns)
    taken = periods + numbers + values
    measure = [POSSESSIVE.sub("", m.group(0)) for m in words(text)
               if not _overlaps(m.start(), m.end(), taken) and fold(m.group(0)) not in STOPWORDS]
    return Statement(text, periods, numbers, values, measure)


def word_stems(text: str) -> list[str]:
    """The words of `text` as compared: folded, singular, without a possessive 's."""
    return [stem(POSSESSIVE.sub("", m.group(0))) for m in words(text)]


def mentions(text: str, phrase: str) -> bool:
    """Whether `text` says `phrase`, word for word, ignoring case, accents, plurals and possessives."""
    wanted, have = word_stems(phrase), word_stems(text)
    return bool(wanted) and any(have[i:i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1))
