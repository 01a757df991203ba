"""Document router: pick the few documents a question is about, so retrieval can be
pre-filtered to them, and fall back to searching everything when unsure.

The specification asks an LLM to pick file names from the document summaries (docs/specification.md). Here an LLM call costs
30-60 s, so the router reads the same material without one:

1. Names. A question that names a document's owner or subject ("3M", "Ulta Beauty", "Apple") is
   routed to the documents that carry that name in their file name or on their first page (a
   filing's cover names its registrant; summaries of such filings are mostly boilerplate, and
   a file called "2023 Q3 AAPL.pdf" never says "Apple"). Only distinctive words count: a word on
   more than `router_max_docs` documents ("Washington", "10-K", "Quarterly") names none of them.
   First-page words must be capitalised in the question, as names are, so "net sales" does not
   route to the one press release whose headline says "Net Sales". The documents naming the most
   names win, each name counted once however it is written ("AWS (Amazon Web Services)"), and a
   filing named by its registrant or file name beats a document that only carries the name on its
   first page (a supplier's invoice). When the question also names
   a period ("FY2018", "Q2 2023", "the second quarter of 2023"), the documents whose title has the
   most of it are preferred. Each filing's own cover says what it covers ("Form 10-Q · quarter
   ended July 1, 2023", `core.ingest.context.cover_identity`): a question that names a period end
   ("the quarter ended March 2023", "as of December 31, 2022") keeps the filings whose period ends
   then, and one that asks for the latest ("the most recent 10-Q") keeps the named company's filing
   with the latest period end, unless it also asks about earlier periods ("compared to previous
   quarters"), which keeps them all. Fiscal or calendar: whatever the filing itself states.
2. Summaries. Otherwise the question's embedding is compared with each document summary's
   (KnowledgeBase.search_summaries); the documents within a margin of the best are chosen, when
   the best is similar enough to be trusted.

Chosen ids are validated against the knowledge base. Routing is skipped when there is nothing
to narrow, and the Retriever falls back to every document when the filtered search comes back
weak (`is_weak`).
"""
from __future__ import annotations

import calendar
import re
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date
from functools import lru_cache
from typing import Callable

import numpy as np

from core.annotations.conditions import YEAR_DIGITS, MONTH_NAME, quarters_in
from core.config import Settings
from core.annotations.documents import parse_date
from core.ingest.context import CoverIdentity, context_of, cover_identity
from core.profiles import DocumentProfile, active_profiles
from core.store import KnowledgeBase
from core.store.keyword import STOPWORDS

_WORD = re.compile(r"[a-z0-9]+")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9&.'’-]*")
_LOWER_CASE_WORD = re.compile(r"(?<![\w./@-])[a-z]+(?![\w./@-])")
_YEAR = re.compile(YEAR_DIGITS)
_MONTHS = MONTH_NAME + r"\.?"  # "Sept.", "Dec"
# "the quarter ended March 31, 2023", "the period ending June 2023", "as of December 31, 2022".
_PERIOD_END = re.compile(
    r"\b(?:quarter|period|year|months)\s+end(?:ed|ing)\s+(?:on\s+)?(" + _MONTHS + r")\s+(?:(\d{1,2}),?\s+)?(\d{4})"
    r"|\bas\s+(?:of|at)\s+(" + _MONTHS + r")\s+(?:(\d{1,2}),?\s+)?(\d{4})", re.IGNORECASE)
# "the most recent report", "the latest quarter" (and a profile's forms: "the latest 10-Q").
_LATEST = (r"\b(?:most\s+recent|latest|newest|current)\b(?:\s+[\w-]+){{0,2}}?\s+(?:{forms}quarters?|quarterly|reports?|"
           r"filings?|periods?|fiscal|annual)\b|\b(?:most\s+recent|latest)\s*(?:\?|$)")
# Asking about the earlier periods too: the latest document alone cannot answer.
_EARLIER = (r"\b(?:previous|prior|past|earlier|preceding|other|reported|these|all)\s+(?:\w+\s+)?(?:quarters|periods|years|"
            r"filings|reports{plural_forms})\b|\bover\s+(?:time|the\s+(?:quarters|periods|years))\b|\bprevious\s+ones\b")
_DAYS_APART = 7  # a 52/53-week year ends on a weekday near the month's end ("July 1, 2023" for June)
# Words that say what kind of file it is, or ask something, never whose it is.
_NOT_NAMES = STOPWORDS | {
    "pdf", "xlsx", "csv", "txt", "md", "dated", "final", "draft", "copy", "new", "inc", "corp", "co", "ltd", "llc",
    "plc", "company", "corporation", "compare", "list", "show", "explain", "describe", "give", "tell", "please",
    "can", "could", "would", "should", "why", "whose", "there", "any", "all", "each", "every",
} | {m.lower() for m in calendar.month_name[1:]}  # a month names a period ("March 2023"), never an owner


@dataclass
class Candidate:
    doc_id: str
    filename: str
    score: float  # summary similarity, or the number of the document's names the question states
    why: str


@dataclass
class Routing:
    doc_ids: list[str] | None  # None: search every document
    reason: str
    method: str  # "name" | "summary" | "none"
    chosen: list[Candidate] = field(default_factory=list)
    considered: list[Candidate] = field(default_factory=list)  # the best candidates, for the trace

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class _Profile:
    filename: str
    title_names: set[str]  # distinctive words of the file name
    cover_names: set[str]  # capitalised words of the first chunks
    periods: set[str]  # years and quarters in the file name
    period: CoverIdentity = field(default_factory=CoverIdentity)  # who its cover says it is, what it covers
    # The registrant's name on the cover: its words, and them run together ("footlocker")
    owner_names: set[str] = field(default_factory=set)
    # Each longer name on the cover or in the file name ("Amazon Web Services", "AmazonWebServices"):
    # its words, them run together, and their initials ("aws"): one name however it is written.
    long_names: list[set[str]] = field(default_factory=list)


def periods_in(text: str) -> set[str]:
    lowered = text.lower()
    return set(_YEAR.findall(lowered)) | {f"q{n}" for n in quarters_in(lowered)}


@dataclass
class AskedPeriod:
    """The period a question names, as far as code reads it completely."""
    ends: list[date] = field(default_factory=list)  # stated period ends ("quarter ended March 31, 2023")
    latest: bool = False  # "the most recent 10-Q", and no earlier period asked about
    form: str = ""  # a form a domain profile reads in the question ("10-Q" for "the latest 10-Q")


@lru_cache(maxsize=8)
def _latest_and_earlier(profiles: tuple[DocumentProfile, ...]) -> tuple[re.Pattern, re.Pattern]:
    forms = "".join(f"{p.form_words}|" for p in profiles)
    plural_forms = "".join(f"|{p.plural_forms}" for p in profiles)
    return (re.compile(_LATEST.format(forms=forms), re.IGNORECASE),
            re.compile(_EARLIER.format(plural_forms=plural_forms), re.IGNORECASE))


def asked_period(question: str, profiles: tuple[DocumentProfile, ...] = ()) -> AskedPeriod:
    ends = []
    for m in _PERIOD_END.finditer(question):
        month, day, year = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
        first = parse_date(f"{month[:3]} 1, {year}")  # the pattern accepts any word that starts as a month does
        if first is None:
            continue
        last_day = calendar.monthrange(first.year, first.month)[1]
        ends.append(first.replace(day=min(int(day), last_day) if day else last_day))
    latest, earlier = _latest_and_earlier(profiles)
    return AskedPeriod(ends, bool(latest.search(question)) and not earlier.search(question),
                       next((form for p in profiles if (form := p.form_asked(question))), ""))


def _is_name(word: str) -> bool:
    return word not in _NOT_NAMES and not word.isdigit() and not periods_in(word) and len(word) > 1


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("'s", "").replace("’s", ""))


def _joined_forms(words: list[str]) -> set[str]:
    """Words, and adjacent pairs and triples run together ("Best Buy" -> "bestbuy"), since file
    names often run a company's words together."""
    forms = set(words)
    for n in (2, 3):
        forms |= {"".join(words[i:i + n]) for i in range(len(words) - n + 1)}
    return forms


class DocumentRouter:
    def __init__(self, kb: KnowledgeBase, settings: Settings) -> None:
        self.kb = kb
        self.settings = settings
        self.domain_profiles = active_profiles(settings)
        self._profiles: tuple[str, dict[str, _Profile]] | None = None
        self._lock = threading.Lock()  # sub-queries are routed from several threads

    def route(
        self, question: str, embed: Callable[[list[str]], np.ndarray] | None = None, otherwise: Routing | None = None,
    ) -> Routing:
        """Where to search for `question`. A sub-query that names no document of its own takes
        `otherwise` (the whole question's routing) instead of the summaries."""
        s = self.settings
        profiles = self.profiles()
        if len(profiles) <= s.router_top_k_docs:
            return Routing(None, f"{len(profiles)} document(s): nothing to narrow", "none")
        named = self.name_matches(question, profiles)
        if named:
            return self._by_name(question, named, profiles)
        if otherwise is not None:
            return otherwise
        return self.by_summary(question, embed)

    # --- names ----------------------------------------------------------------------------------

    def profiles(self) -> dict[str, _Profile]:
        """Each searchable document's names, rebuilt when the knowledge base changes."""
        generation = self.kb.catalog.get_meta("generation") or "0"
        with self._lock:
            if self._profiles is None or self._profiles[0] != generation:
                self._profiles = (generation, self._build_profiles())
            return self._profiles[1]

    def _build_profiles(self) -> dict[str, _Profile]:
        n = self.settings.router_cover_chunks
        summaries = self.kb.document_summaries()
        profiles = {}
        for d in self.kb.documents():
            if d.status != "indexed":
                continue
            first = self.kb.catalog.neighbours(d.doc_id, 0, n - 1)
            cover = " ".join(c.text for c in first)
            period = (cover_identity(context_of(first[0].index_text, first[0].text), self.domain_profiles)
                      if first else CoverIdentity())
            title_periods = periods_in(d.filename)
            # "10K" in "3M_2018_10K.pdf" is the kind of document (its summary says so), not a name.
            kind = _joined_forms(_words(summaries.get(d.doc_id, {}).get("document_type", "")))
            profiles[d.doc_id] = _Profile(
                d.filename,
                {w for w in _words(d.filename.rsplit(".", 1)[0]) if _is_name(w) and w not in kind},
                {w for token in _CAPITALISED.findall(cover) for w in _words(token) if _is_name(w)},
                # A file name without a period takes the year its cover's period ends in.
                title_periods or ({str(period.end.year)} if period.end else set()),
                period,
                _joined_forms([w for w in _words(period.company) if _is_name(w)]),
                _long_names(cover, d.filename.rsplit(".", 1)[0]),
            )
        # A name shared by more documents than routing would keep names none of them, and a word
        # the documents also use in lower case ("cash", "earnings", "center") is an ordinary word.
        # The registrant's own name stays a name however many of its filings there are: twelve
        # quarters of one company are still that company's, and its period narrows them.
        frequency = Counter(w for p in profiles.values() for w in p.title_names | p.cover_names)
        ordinary = self._lower_case_words(profiles)
        limit = self.settings.router_max_docs
        for p in profiles.values():
            p.title_names = {w for w in p.title_names if (frequency[w] <= limit or w in p.owner_names) and w not in ordinary}
            p.cover_names = {w for w in p.cover_names if (frequency[w] <= limit or w in p.owner_names) and w not in ordinary}
        return profiles

    def _lower_case_words(self, profiles: dict[str, _Profile]) -> set[str]:
        """Words written in lower case in running text (not in web or mail addresses) in the first
        `router_vocabulary_chunks` chunks of every document."""
        n = self.settings.router_vocabulary_chunks
        words: set[str] = set()
        for doc_id in profiles:
            for chunk in self.kb.catalog.neighbours(doc_id, 0, n - 1):
                words.update(_LOWER_CASE_WORD.findall(chunk.text))
        return words

    @staticmethod
    def name_matches(question: str, profiles: dict[str, _Profile]) -> dict[str, list[str]]:
        """doc_id -> the names of the document that the question states, one per name however
        the question writes it ("AWS (Amazon Web Services)" is one name, not three), and none for
        a word the question writes only inside another document's longer name ("Amazon" in
        "pay Amazon Web Services" names the supplier, not Amazon.com's filings)."""
        words = _question_words(question)
        runs = {doc_id: _runs(words, p) for doc_id, p in profiles.items()}
        found = {}
        for doc_id, own in runs.items():
            others = [r for d, rs in runs.items() if d != doc_id for r in rs]
            kept = [r for r in own if not any(o.start <= r.start and r.end <= o.end and o.length > r.length
                                              for o in others)]
            names = _distinct(kept, words)
            if names:
                found[doc_id] = sorted(names)
        return found

    def _by_name(self, question: str, named: dict[str, list[str]], profiles: dict[str, _Profile]) -> Routing:
        period = asked_period(question, self.domain_profiles)
        how = ""
        of_form = {d for d in named if period.form and profiles[d].period.form == period.form}
        if of_form:  # "Amazon's 10-Q", "these 10-Qs": not an invoice that names Amazon too, nor the 10-Ks
            named = {doc_id: names for doc_id, names in named.items() if doc_id in of_form}
            how = f", Form {period.form}"
        count = {doc_id: _name_count(names, profiles[doc_id].long_names) for doc_id, names in named.items()}
        most = max(count.values())
        best = {doc_id: names for doc_id, names in named.items() if count[doc_id] == most}
        # As many names each: the documents whose registrant or file name the question names are
        # about it; the others only carry the name on a first page (a supplier's invoice that says
        # "Amazon" beside "AWS" is not about Amazon's segments).
        about = {d for d, names in best.items() if (profiles[d].owner_names | profiles[d].title_names) & set(names)}
        if about:
            best = {doc_id: names for doc_id, names in best.items() if doc_id in about}
        asked = periods_in(question)
        overlap = {doc_id: len(asked & profiles[doc_id].periods) for doc_id in best}
        ends = {doc_id: profiles[doc_id].period.end for doc_id in best}
        dated = {doc_id for doc_id, end in ends.items()
                 if end and any(abs((end - e).days) <= _DAYS_APART for e in period.ends)}
        if dated:  # the cover's period end is the question's
            best = {doc_id: names for doc_id, names in best.items() if doc_id in dated}
            how += " and the period end"
        elif asked and max(overlap.values()) > 0:
            top = max(overlap.values())
            best = {doc_id: names for doc_id, names in best.items() if overlap[doc_id] == top}
            how += " and the period"
        if period.latest and len(best) > 1:
            best, latest = _latest(best, profiles)
            how += latest
        candidates = [
            Candidate(doc_id, profiles[doc_id].filename, float(len(names)), "names " + ", ".join(names) + how)
            for doc_id, names in sorted(best.items(), key=lambda kv: profiles[kv[0]].filename)
        ]
        stated = ", ".join(sorted({w for names in best.values() for w in names}))
        if len(candidates) > self.settings.router_max_docs:
            return Routing(None, f"unsure: '{stated}' fits {len(candidates)} documents; searching every document",
                           "none", considered=candidates)
        valid = _validate(candidates, self.kb)
        if not valid:
            return Routing(None, "the named documents are no longer searchable: searching every document", "none",
                           considered=candidates)
        return Routing([c.doc_id for c in valid], f"the question names {stated}: {len(valid)} document(s)",
                       "name", valid, candidates)

    # --- summaries ------------------------------------------------------------------------------

    def by_summary(self, question: str, embed: Callable[[list[str]], np.ndarray] | None = None) -> Routing:
        s = self.settings
        profiles = self.profiles()
        summaries = self.kb.search_summaries((embed or self.kb.embedder.embed)([question])[0], k=len(profiles))
        if not summaries:
            return Routing(None, "no names stated and no document summaries to route by: searching every document",
                           "none")
        considered = [
            Candidate(doc_id, profiles[doc_id].filename if doc_id in profiles else doc_id, round(score, 3),
                      "summary similarity")
            for doc_id, score, _ in summaries[: 2 * s.router_top_k_docs]
        ]
        best = summaries[0][1]
        if best < s.router_min_similarity:
            return Routing(None, f"unsure: best summary similarity {best:.2f} is under {s.router_min_similarity}; "
                           "searching every document", "none", considered=considered)
        chosen = [c for c in considered if c.score >= best - s.router_similarity_margin][: s.router_top_k_docs]
        valid = _validate(chosen, self.kb)
        if not valid:
            return Routing(None, "the routed documents are no longer searchable: searching every document", "none",
                           considered=considered)
        return Routing([c.doc_id for c in valid],
                       f"{len(valid)} document(s) whose summaries are closest to the question (best {best:.2f})",
                       "summary", valid, considered)


# Punctuation, and a possessive, end a name: "Amazon's AWS (Amazon Web Services)" is three.
_NAME_BREAK = re.compile(r"[,;:()\[\]?!\"“”]|(?<=['’]s)\s")


@dataclass
class _Word:
    text: str
    segment: int  # words of one segment may form one name
    capitalised: bool


@dataclass
class _Run:
    start: int  # word positions in the question, end exclusive
    end: int
    form: str  # its words run together

    @property
    def length(self) -> int:
        return self.end - self.start


def _question_words(question: str) -> list[_Word]:
    found = []
    for segment, part in enumerate(_NAME_BREAK.split(question)):
        for token in re.findall(r"[A-Za-z0-9&.'’-]+", part):
            found += [_Word(w, segment, token[:1].isupper()) for w in _words(token)]
    return found


def _runs(words: list[_Word], p: _Profile) -> list[_Run]:
    """The question's runs of consecutive words, within one segment, that are names of the
    document: a file-name word in any case, a cover word only when capitalised (as names are);
    up to three words run together ("Best Buy" for "BestBuy.pdf")."""
    covered: set[int] = set()
    for n in (1, 2, 3):
        for i in range(len(words) - n + 1):
            span = words[i:i + n]
            if len({w.segment for w in span}) > 1:
                continue
            form = "".join(w.text for w in span)
            if form in p.title_names or (form in p.cover_names and all(w.capitalised for w in span)):
                covered.update(range(i, i + n))
    runs, start = [], None
    for i in range(len(words) + 1):
        inside = i in covered and (start is None or words[i].segment == words[start].segment)
        if start is not None and not inside:
            runs.append(_Run(start, i, "".join(w.text for w in words[start:i])))
            start = None
        if start is None and i in covered:
            start = i
    return runs


def _distinct(runs: list[_Run], words: list[_Word]) -> set[str]:
    """One name per run, the same name once; a run that is a word of a longer one ("Amazon" of
    "Amazon Web Services") or its initials ("AWS") is that longer name."""
    longer = [r for r in runs if r.length > 1]
    parts = {w.text for r in longer for w in words[r.start:r.end]}
    initials = {"".join(w.text[0] for w in words[r.start:r.end]) for r in longer}
    return {r.form for r in runs if r.length > 1 or (r.form not in parts and r.form not in initials)}


def _long_names(cover: str, stem: str) -> list[set[str]]:
    """Runs of two or more capitalised words on a cover line, and a file name's CamelCase words:
    each as its words, them run together and their initials."""
    runs = [re.findall(r"[A-Z][a-z]+", part) for part in re.split(r"[\s_-]+", stem)]
    runs += [m.group(0).split() for line in cover.splitlines()
             for m in re.finditer(r"\b[A-Z][A-Za-z&]+(?:[ \t]+[A-Z][A-Za-z&]+)+", line)]
    found = []
    for run in runs:
        words = [w.lower() for w in run]
        if len(words) > 1:
            found.append(set(words) | {"".join(words), "".join(w[0] for w in words)})
    return found


def _name_count(names: list[str], long_names: list[set[str]]) -> int:
    """How many names `names` are: those within one of the document's longer names count once."""
    groups: list[set[str]] = []
    for name in names:
        joined = [g for g in groups if any(name in ln and g & ln for ln in long_names)]
        merged = {name}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    return len(groups)


def _latest(best: dict[str, list[str]], profiles: dict[str, _Profile]) -> tuple[dict[str, list[str]], str]:
    """The documents whose cover's period ends last; unchanged when no cover states a period end."""
    ends = [profiles[d].period.end for d in best if profiles[d].period.end]
    if not ends:
        return best, ""
    last = max(ends)
    return {d: n for d, n in best.items() if profiles[d].period.end == last}, f", the latest period ({last.isoformat()})"


def _validate(candidates: list[Candidate], kb: KnowledgeBase) -> list[Candidate]:
    """Only documents that are in the knowledge base and searchable right now."""
    present = set(kb.resolve_documents([c.doc_id for c in candidates]))
    return [c for c in candidates if c.doc_id in present]


def is_weak(hits, settings: Settings) -> bool:
    """A filtered search that found nothing, or nothing close to the question, means the router
    was probably wrong: search everything instead. (Fewer hits than asked for is not weak: the
    chosen documents may just be short.)"""
    scored = [h for h in hits if h.expanded_from is None]
    return not scored or max(h.similarity for h in scored) < settings.router_weak_similarity
