"""TAT-QA through the app: each context written as a PDF page, asked through Workspace, scored by the official rules.

    # the evidence the reader would see, no model (decide table-reader changes on the tuning part)
    DOCUCHAT_DATA_DIR=/work/kb/reports/tatqa-tune .venv/bin/python -m bench.tatqa --part tune --retrieval-only
    # end to end with the real model (one model process at a time on this machine)
    DOCUCHAT_DATA_DIR=/work/kb/reports/tatqa-tune flock /tmp/docuchat-model.lock \
        .venv/bin/python -m bench.tatqa --part tune --limit 40
    # re-report a run, also one that was stopped
    .venv/bin/python -m bench.tatqa --report bench/results/tatqa-tune-model.jsonl

- The contexts (one table and its paragraphs each) are split once, by `--seed`, into a tuning part and
  a reporting part of equal size (`split_contexts`): tune on `tune`, report on `report`.
- Each context is written as a PDF (reportlab): its table, ruled or unruled by a seeded choice, with
  the header rows the set gives (a lone header cell over the figure columns spans them, as printed),
  below the paragraphs that introduce it ("... as follows (in thousands):") and above the rest
  (`before_table`); so the PDF table reader is part of what is measured.
- All written documents go into the one knowledge base of DOCUCHAT_DATA_DIR; each question is asked
  with its own document in scope (`doc_ids`).
- Scored by TAT-QA's official rules (bench/tatqa_metric.py): the answer's number and its scale word
  ("million", "%") are read from the app's answer text (`prediction_of`); a span answer is the answer's
  text without its citations.
- `--retrieval-only`: no model. For each question, whether the evidence (the paragraph text or the
  table cells the gold answer and derivation name) is in the passages the reader would be given
  (the same search and `build_sources` as the pipeline), and whether each table cell reaches it on a
  line with its row label and in a passage with its column header.
- `--rules-only`: no model either. Every model call is answered "not in table", so what is right is what code
  answered alone (table plans by rules, code's arithmetic); each row counts the model calls the answer tried
  (`model_calls`). Fast enough to check a rule change over the whole tuning part for answers it breaks.
- Results are appended to bench/results/tatqa-<part>-<mode>.jsonl as they come.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, keep_answers, percentile, table  # noqa: E402
from bench.tatqa_metric import SCALES, score as official_score  # noqa: E402
from core.agents.question_kind import TEXT, by_rules  # noqa: E402
from core.annotations.conditions import singulars, tokens  # noqa: E402

# ../shared from the main checkout, ../../shared from a worktree under wt/
DATA = next((p / "shared" / "eval-public" / "tatqa" / "tatqa_dataset_dev.json" for p in Path(__file__).resolve().parents[2:4]
             if (p / "shared").is_dir()), Path("tatqa_dataset_dev.json"))
SEED = 23
TUNE, REPORT = "tune", "report"
DOCS = Path("/work/kb/reports/tatqa-docs/v4")  # the written PDFs, kept between runs (v4: introduction above)

# --- the split -----------------------------------------------------------------------------------


def split_contexts(contexts: list[dict], seed: int) -> dict[str, list[dict]]:
    """Half the contexts (by a seeded shuffle of their sorted ids) to tune on, the other half to report."""
    ids = sorted(c["table"]["uid"] for c in contexts)
    random.Random(seed).shuffle(ids)
    tune = set(ids[: len(ids) // 2])
    return {TUNE: [c for c in contexts if c["table"]["uid"] in tune],
            REPORT: [c for c in contexts if c["table"]["uid"] not in tune]}


# --- the documents -------------------------------------------------------------------------------

_FIGURE = re.compile(r"^[\s$€£(—–-]*\d[\d,.]*\s*%?\)?$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def header_rows(grid: list[list[str]]) -> int:
    """How many leading rows are column headers: rows with something over the figure columns and no
    figure there but years ("Years Ended September 30," over "2019 | 2018 | 2017"; "As of | 2019 | 2018")."""
    count = 0
    for row in grid:
        cells = [c.strip() for c in row[1:] if c.strip()]
        if not cells or any(_FIGURE.match(c) and not _YEAR.match(c) for c in cells):
            break
        count += 1
    return count


def write_pdf(context: dict, path: Path, ruled: bool) -> Path:
    """One context as a PDF: its table (ruled or not) and its paragraphs."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
    from xml.sax.saxutils import escape

    grid = [[str(c) for c in row] for row in context["table"]["table"]]
    width = max(len(r) for r in grid)
    grid = [r + [""] * (width - len(r)) for r in grid]
    heads = header_rows(grid)
    style = [("FONTSIZE", (0, 0), (-1, -1), 8), ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
             ("VALIGN", (0, 0), (-1, -1), "BOTTOM"), ("FONTNAME", (0, 0), (-1, heads - 1), "Helvetica-Bold")]
    for r in range(heads):
        filled = [i for i, c in enumerate(grid[r]) if c.strip() and i > 0]
        if len(filled) == 1 and width > 2:  # one header cell over several figure columns: it spans them
            text = grid[r][filled[0]]
            grid[r] = [grid[r][0], text] + [""] * (width - 2)
            style += [("SPAN", (1, r), (-1, r)), ("ALIGN", (1, r), (-1, r), "CENTER")]
    if ruled:
        style.append(("GRID", (0, 0), (-1, -1), 0.5, colors.black))
    body = getSampleStyleSheet()["BodyText"]
    cell = body.clone("cell", fontSize=8, leading=9.5)
    head = cell.clone("head", fontName="Helvetica-Bold", alignment=2)  # right, over right-aligned figures
    spanning = head.clone("spanning", alignment=1)
    label_width = 200 if width > 2 else 300
    # Long labels wrap in their column, and so do long headers, as a report sets them.
    rows = [[Paragraph(escape(r[0]), cell),
             *[Paragraph(escape(c), spanning if i < heads and c and not any(r[2:]) and width > 2 else head)
               if i < heads else c for c in r[1:]]] for i, r in enumerate(grid)]
    table = [Table(rows, colWidths=[label_width] + [(500 - label_width) / (width - 1)] * (width - 1),
                   style=TableStyle(style), hAlign="LEFT"), Spacer(1, 12)]
    paragraphs = [[Paragraph(escape(p["text"]), body), Spacer(1, 6)]
                  for p in sorted(context["paragraphs"], key=lambda p: p["order"])]
    before = before_table(context)
    intro = max(before - 1, 0)  # the paragraph that introduces the table, kept on one page with it
    flow = [*[f for p in paragraphs[:intro] for f in p],
            KeepTogether([*[f for p in paragraphs[intro:before] for f in p], *table]),
            *[f for p in paragraphs[before:] for f in p]]
    path.parent.mkdir(parents=True, exist_ok=True)
    SimpleDocTemplate(str(path), pagesize=A4, invariant=1, leftMargin=40, rightMargin=40).build(flow)
    return path


def before_table(context: dict) -> int:
    """How many of the context's paragraphs the report printed above its table: those up to the one that
    introduces it ("... are as follows (in millions):"), as in the filing; none when no paragraph does. (The set
    keeps the paragraphs' order but not the table's place among them; written after them all, an introduction
    and the scale it states fell on the next page.)"""
    texts = [p["text"].rstrip() for p in sorted(context["paragraphs"], key=lambda p: p["order"])]
    return max((i + 1 for i, text in enumerate(texts) if text.endswith(":")), default=0)


def document_name(context: dict) -> str:
    return f"tatqa-{context['table']['uid'][:8]}.pdf"


# --- reading the app's answer --------------------------------------------------------------------

_MARKER = re.compile(r"\[(?:Source )?\d+(?:,\s*\d+)*\]")
_FILE = re.compile(r"\((?:from\s+)?[\w.-]+\.(?:pdf|csv|xlsx|txt|md)\)", re.I)  # "(tatqa-1aa69af8.pdf)": no figures
_LIST_ITEM_WORDS = 3  # a listed name or year is short; a clause is part of a sentence
_NUMBER = re.compile(r"\(?-?[$€£]?\s?\d[\d,]*(?:\.\d+)?\)?(?:\s?%|\s?(?:thousand|million|billion|percentage points?|percent)\b)?",
                     re.I)
_CELL = re.compile(r"^(?P<head>(?:(?!\b(?:is|was|were|are)\b)[^:])+):\s*[-−(]?[$€£]?\d")
_SPLIT_YEAR = re.compile(r"(?:19|20)\d\d\s*/\s*\d{2,4}\b")
_DAY_OF_MONTH = re.compile(r"\b((?:January|February|March|April|May|June|July|August|September|October|November|"
                           r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?)\s+\d{1,2}(?:st|nd|rd|th)?\b,?")
# "When did the court deny the rehearing?" answered "... on November 12, 2019": the date is the answer, not its year
_WHEN = re.compile(r"^\W*when\b", re.I)
_MONTHS = _DAY_OF_MONTH.pattern.split(r"\s+\d")[0]  # (its month group)
# "November 12, 2019", or "27 May 2019"
_FULL_DATE = re.compile(_DAY_OF_MONTH.pattern.replace(",?", r",?\s+(?:19|20)\d\d\b")
                        + rf"|\b\d{{1,2}}\s+{_MONTHS}\s+(?:19|20)\d\d\b")
_SCALE_WORDS = {"thousand": "thousand", "million": "million", "billion": "billion", "percentage points": "percent",
                "percentage point": "percent", "percent": "percent", "%": "percent"}


def _scale_of(text: str) -> tuple[str, str]:
    """("1,496.5", "million") from "1,496.5 million"; ("23.4", "percent") from "23.4%"."""
    for word, scale in _SCALE_WORDS.items():
        if text.lower().rstrip().endswith(word):
            return text[: len(text.rstrip()) - len(word)].strip(), scale
    return text.strip(), ""


_LINKING = {"is", "are", "was", "were"}


def span_of(sentence: str, question: str) -> str:
    """A sentence answer read as the span TAT-QA asks for: without the words that restate the question
    ("Liquidity risk is the risk that ..." for "What is liquidity risk?" -> "the risk that ..."). Only
    leading words, at least two, each a word of the question; the sentence whole when nothing would be left."""
    asked = {f for w in tokens(question) for f in singulars(w)}
    words = sentence.split()
    n = 0
    while n < len(words) and (parts := tokens(words[n])) and all(singulars(p) & asked for p in parts):
        n += 1
    if 2 <= n < len(words) - 1 and words[n].lower() in _LINKING:  # "The increase in X is| primarily due to ..."
        n += 1
    return " ".join(words[n:]) if 2 <= n < len(words) else sentence


def score(question: dict, prediction: list[str], scale: str) -> tuple[float, float]:
    """The official score of a prediction, its negative figures read in either notation: the metric compares
    strings, and TAT-QA writes a negative span in brackets ("(2,088)", "(149)%") but an arithmetic answer with
    a minus ("-1859"), while the app prints a minus (-€2,088 million). The same figure either way."""
    forms = [prediction]
    if any(str(p).startswith("-") for p in prediction):
        bracketed = [f"({str(p)[1:]})" if str(p).startswith("-") else p for p in prediction]
        forms += [bracketed, [f"{p}%" if p.startswith("(") else p for p in bracketed]] if scale == "percent" else [bracketed]
    return max(official_score(question, form, scale) for form in forms)


def prediction_of(answer: str, question: str, spans: bool = True) -> tuple[list[str], str]:
    """The answer as TAT-QA scores it: its first figure that the question does not already state (a
    year, a quoted amount), with its scale word; else its text without citations, split into items
    when it lists them. A reason, a definition or a stated term is read as a span (`span_of`), unless
    `spans` is False (the whole sentence, the stricter figure the report prints beside it)."""
    text = " ".join(_FILE.sub("", _MARKER.sub("", answer)).split()).strip()
    if not text:
        return [], ""
    if _WHEN.match(question) and (date := _FULL_DATE.search(text)):
        return [date.group(0)], ""
    if by_rules(question).kind == TEXT:  # the app's own reading: a reason, a definition, a stated term
        text = text.rstrip(".")
        return [span_of(text, question) if spans else text], ""
    text = _DAY_OF_MONTH.sub(r"\1", text)  # "December 31, 2018" names a year-end, not the figure 31
    stated = {re.sub(r"[^\d.]", "", m) for m in _NUMBER.findall(question)}
    figures: list[str] = []
    scales: list[str] = []  # each figure's own scale word: "2019 (... 519 thousand)" answers 2019, no scale
    # "the respective ...", or an answer that gives a figure for each of the years the question asks ("31,867 in
    # 2019, 18,560 in 2018"), is read figure by figure
    asked_years = set(re.findall(r"\b(?:19|20)\d\d\b", question))
    per_year = {y for y in re.findall(r"\d[\d,.]*\s*(?:[a-z]+\s+)?in\s+((?:19|20)\d\d)\b", text) if y in asked_years}
    respective = re.search(r"\brespective", question, re.I) or len(per_year) >= 2
    # "Basic earnings per share (cents), 2019 53 WEEKS: 206.20": a cell read by its row and column; the numbers in
    # the labels before the colon ("53 weeks", a note "(1,2)") are no figures
    cell = _CELL.match(text)
    for match in _NUMBER.finditer(text, cell.end("head") if cell else 0):
        figure = match.group(0).strip().rstrip(",")  # "2017, 2018": the comma is the sentence's
        if re.sub(r"[^\d.]", "", figure) in stated:
            continue
        if respective and re.fullmatch(r"(?:19|20)\d\d", figure) and re.search(r"\bin\s*$", text[:match.start()]):
            continue  # "2.41 in 2019, 2.70 in 2018, 12.30 in 2017": the year each figure is for, not a figure asked
        at = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
        if _SPLIT_YEAR.match(text, at) or re.search(r"(?:19|20)\d\d\s*/\s*$", text[:at]):
            continue  # "Income taxes, 2018/2019: -€298 million": a financial year names the column, it is no figure

        figure, said = _scale_of(figure)
        negative = figure.startswith("(") and figure.endswith(")") or figure.startswith("-")
        figure = re.sub(r"[()$€£\s-]", "", figure)
        figures.append(f"-{figure}" if negative else figure)
        scales.append(said)
    if figures:  # "the respective ..." asks for each figure, "which years" for each year; anything else for one
        if re.search(r"\b(?:which|what)\s+(?:fiscal\s+|financial\s+)?years\b", question, re.I):
            years = list(dict.fromkeys(f for f in figures if re.fullmatch(r"(?:19|20)\d\d", f)))
            return (years, "") if years else (figures[:1], scales[0])
        if re.search(r"\b(?:which|what)\s+(?:fiscal\s+|financial\s+)?year\b", question, re.I):
            # "In which year was X below 150?" answered "X: 2017 and 2018 (2017: 138; ...)": the years it names
            head = re.findall(r"(?<![\d,.])(?:19|20)\d\d(?![\d,.])", text.split("(", 1)[0].rpartition(":")[2])
            if head:  # (a year the question states too: "Between 2018 and 2019, which year ...")
                return list(dict.fromkeys(head)), ""
        if respective:
            return figures, next((s for s in scales if s), "")
        return figures[:1], scales[0]
    text = text.rstrip(".")
    if ";" in text and ": " in text.split(";")[0]:  # "Listed under X: A; B": the items after the sentence's head
        text = text.split(": ", 1)[1]
    items = [i.strip(" .") for i in re.split(r";|\n", text) if i.strip(" .")]
    if len(items) > 1:
        return items, ""
    # "2019, 2018 and 2017" lists; a sentence with "and" in it ("distributors and representatives
    # that sell our products") is one span
    items = [i.strip(" .") for i in re.split(r", (?:and )?| and ", text) if i.strip(" .")]
    listed = len(items) > 1 and all(len(i.split()) <= _LIST_ITEM_WORDS for i in items)
    return (items if listed else [text]), ""


# --- the evidence --------------------------------------------------------------------------------

def _digits(text: str) -> str:
    return re.sub(r"[^\d.]", "", text).strip(".")


def evidence_cells(context: dict, question: dict) -> list[list[tuple[str, str, list[str]]]]:
    """For each figure the gold answer or derivation takes from the table, the cells that print it:
    (cell text, row label, its column's header texts); one of them is the cell meant."""
    grid = context["table"]["table"]
    heads = header_rows(grid)
    wanted = [*question["answer"]] if isinstance(question["answer"], list) else []
    wanted += re.findall(r"\d[\d,]*\.?\d*", question.get("derivation") or "")
    by_figure: dict[str, list] = {}
    for figure in dict.fromkeys(_digits(w) for w in wanted if _digits(w)):
        for row in grid[heads:]:
            for c, cell in enumerate(row[1:], start=1):
                if cell.strip() and _digits(cell) == figure:
                    headers = [grid[h][c].strip() for h in range(heads) if grid[h][c].strip()]
                    by_figure.setdefault(figure, []).append((cell.strip(), row[0].strip(), headers))
    return list(by_figure.values())


def _addressed(value: str, label: str, header: list[str], sources: list[str]) -> bool:
    """The cell is on a line of a passage with its row label, and that passage shows one of its headers."""
    for source in sources:
        lines = [" ".join(line.split()).lower() for line in source.split("\n")]
        on_line = any(_digits(value) in re.sub(r"[, $]", "", line) and label.lower()[:30] in line for line in lines)
        shown = " ".join(source.split()).lower()
        if on_line and (not header or any(" ".join(h.split()).lower() in shown for h in header)):
            return True
    return False


def evidence_in(sources: list[str], context: dict, question: dict) -> dict:
    """Whether the reader's passages hold the evidence: every number of the derivation (or the gold
    spans); and how many of the table figures it takes are in a passage on a line with their row label
    and under one of their column's headers."""
    text = "\n".join(sources)
    flat = " ".join(text.split()).lower()
    if question["answer_type"] in ("span", "multi-span"):
        needed = [str(a) for a in question["answer"]]
    else:
        needed = re.findall(r"\d[\d,]*\.?\d*", question.get("derivation") or "") or [str(question["answer"])]
    digit_text = re.sub(r"[, $]", "", flat)
    present = all((" ".join(n.split()).lower() in flat) or (_digits(n) and _digits(n) in digit_text)
                  for n in needed)
    figures = evidence_cells(context, question) if question["answer_from"] != "text" else []
    addressed = sum(any(_addressed(*cell, sources) for cell in cells) for cells in figures)
    return {"evidence_present": present, "cells": len(figures), "cells_addressed": addressed}


# --- running -------------------------------------------------------------------------------------

# --rules-only's one reply to every model call: the plan form's "this table cannot answer", which the text
# reader's form also reads as no answer
NOT_IN_TABLE = json.dumps({"answer": "not in table", "column": "", "filters": []})

def questions_of(contexts: list[dict], seed: int, limit: int | None, skip: int = 0) -> list[tuple[dict, dict]]:
    """(context, question) pairs of a part, in a seeded order (a --limit sample spreads over kinds); `skip`
    passes over the first ones, so a slice not yet tuned on can be measured."""
    pairs = [(c, q) for c in contexts for q in c["questions"]]
    random.Random(seed).shuffle(pairs)
    return pairs[skip: skip + limit] if limit else pairs[skip:]


def ingest(ws, contexts: list[dict], seed: int) -> dict[str, str]:
    """Write and ingest the contexts' documents; the doc id of each context."""
    paths = []
    for context in contexts:
        ruled = is_ruled(context, seed)
        path = DOCS / ("ruled" if ruled else "unruled") / document_name(context)
        paths.append(path if path.exists() else write_pdf(context, path, ruled))
    results = ws.ingest(paths)
    failed = [r for r in results if not r.doc_id]
    if failed:
        print(f"{len(failed)} documents failed: {failed[0].filename}: {failed[0].message}")
    by_name = {r.filename: r.doc_id for r in results}
    return {c["table"]["uid"]: by_name.get(document_name(c)) for c in contexts}


def is_ruled(context: dict, seed: int) -> bool:
    """Half the tables drawn with rules, half without: a seeded choice per context, whatever is sampled."""
    return random.Random(f"{seed}:{context['table']['uid']}").random() < 0.5


def run(args) -> Path:
    from core.agents.reasoner import build_sources
    from core.config import load_settings
    from core.llm.scripted import ScriptedLLM
    from core.workspace import Workspace

    contexts = json.loads(Path(args.data).read_text())
    part = split_contexts(contexts, args.seed)[args.part]
    pairs = questions_of(part, args.seed, args.limit, args.skip)
    needed = list({c["table"]["uid"]: c for c, _ in pairs}.values())
    mode = "retrieval" if args.retrieval_only else "rules" if args.rules_only else "model"
    settings = load_settings()
    if args.retrieval_only:
        settings = settings.replace(llm_provider="scripted")
    llm = ScriptedLLM(lambda messages: NOT_IN_TABLE) if args.rules_only else None
    ws = Workspace(settings, llm=llm)
    started = time.perf_counter()
    doc_of = ingest(ws, needed, args.seed)
    print(f"{len(needed)} documents in {time.perf_counter() - started:.0f} s (data dir {settings.data_dir})")
    out = Path(args.out or RESULTS / f"tatqa-{args.part}-{mode}.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.fresh:
        out.unlink(missing_ok=True)  # (an --out file too: appended to, it held a stopped run's answers twice)
    elif out.exists():
        done = {json.loads(line)["uid"] for line in out.read_text().splitlines() if line.strip()}
    count = ws.kb.embedder.count_tokens
    with out.open("a") as sink:
        for n, (context, q) in enumerate(pairs, start=1):
            if q["uid"] in done:
                continue
            doc_id = doc_of[context["table"]["uid"]]
            row = {"uid": q["uid"], "context": context["table"]["uid"], "question": q["question"],
                   "answer_type": q["answer_type"], "answer_from": q["answer_from"], "scale": q["scale"],
                   "ruled": is_ruled(context, args.seed), "doc_id": doc_id}
            begun = time.perf_counter()
            if args.retrieval_only:
                hits = ws.retriever.search(q["question"], top_k=settings.top_k, doc_ids=[doc_id]).hits
                chosen = hits[: settings.reader_max_sources] if settings.reader_max_sources else hits
                sources = build_sources(q["question"], chosen, settings.context_token_budget, count)
                row.update(evidence_in([s.text for s in sources], context, q))
                row["sources"] = [s.text for s in sources]
            else:
                calls_before = len(llm.calls) if llm else 0
                response = ws.ask(q["question"], doc_ids=[doc_id])
                if llm:
                    row["model_calls"] = len(llm.calls) - calls_before
                prediction, scale = prediction_of(response.answer, q["question"])
                em, f1 = score(q, prediction, scale)
                row.update(answer=response.answer, prediction=prediction, pred_scale=scale, em=em, f1=f1,
                           confidence=response.confidence, route=response.route,
                           gold=q["answer"], derivation=q["derivation"])
            row["seconds"] = round(time.perf_counter() - begun, 2)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            if n % 10 == 0:
                print(f"  {n}/{len(pairs)}", flush=True)
    ws.close()
    return out


def report(path: Path, data: Path, uids: set[str] | None = None) -> list[dict]:
    """Print the figures of a results file, each answer read and scored again; the rows as scored."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if uids is not None:
        rows = [r for r in rows if r["uid"] in uids]
    contexts = {c["table"]["uid"]: c for c in json.loads(data.read_text())}
    questions = {q["uid"]: q for c in contexts.values() for q in c["questions"]}
    for r in rows:  # the answer is read and scored again, the evidence checks re-applied to the passages kept
        if "sources" in r:
            r.update(evidence_in(r["sources"], contexts[r["context"]], questions[r["uid"]]))
        if "answer" in r:
            r["prediction"], r["pred_scale"] = prediction_of(r["answer"], r["question"])
            r["em"], r["f1"] = score(questions[r["uid"]], r["prediction"], r["pred_scale"])
    if not rows:
        print("no results")
        return rows
    print(f"{path} — {len(rows)} questions")
    seconds = [r["seconds"] for r in rows]
    if "em" in rows[0]:
        def figures(group):
            return [len(group), f"{100 * sum(r['em'] for r in group) / len(group):.1f}",
                    f"{100 * sum(r['f1'] for r in group) / len(group):.1f}"]
        lines = [["all", *figures(rows)]]
        for key in ("answer_type", "answer_from", "ruled", "route"):
            groups = defaultdict(list)
            for r in rows:
                groups[r[key]].append(r)
            lines += [[f"{key}={k}", *figures(g)] for k, g in sorted(groups.items(), key=lambda kv: str(kv[0]))]
        print(table(["", "n", "EM %", "F1 %"], lines))
        wrong_high = [r for r in rows if r["em"] == 0 and r.get("confidence") == "high"]
        print(f"wrong at high confidence: {len(wrong_high)}")
        for r in wrong_high[:10]:
            print(f"  {r['question']} -> {r['answer'][:120]!r} (gold {r['gold']} {r['scale']})")
        scales = defaultdict(lambda: [0, 0])
        for r in rows:
            scales[r["scale"]][0] += 1
            scales[r["scale"]][1] += r.get("pred_scale") == r["scale"]
        print("scale right: " + ", ".join(f"{s or 'none'} {scales[s][1]}/{scales[s][0]}" for s in SCALES if s in scales))
        unscaled = sum(1 for r in rows if r["em"] == 0 and score(questions[r["uid"]], r["prediction"], r["scale"])[0])
        print(f"right figure with a wrong or missing scale: {unscaled}")
        whole = [score(questions[r["uid"]], *prediction_of(r["answer"], r["question"], spans=False))[0] for r in rows]
        print(f"EM with text answers read as whole sentences (no span_of): {100 * sum(whole) / len(rows):.1f} %")
        if "model_calls" in rows[0]:
            alone = [r for r in rows if r["model_calls"] == 0]
            print(f"answered by code alone (no model call): {len(alone)}, right {sum(r['em'] for r in alone):.0f}, "
                  f"wrong at high {sum(1 for r in alone if not r['em'] and r['confidence'] == 'high')}, "
                  f"wrong at medium {sum(1 for r in alone if not r['em'] and r['confidence'] == 'medium')}")
    else:
        def figures(group):
            cells = sum(r["cells"] for r in group)
            return [len(group), f"{100 * sum(r['evidence_present'] for r in group) / len(group):.1f}",
                    f"{cells}", f"{100 * sum(r['cells_addressed'] for r in group) / cells:.1f}" if cells else "-"]
        lines = [["all", *figures(rows)]]
        for key in ("answer_from", "answer_type", "ruled"):
            groups = defaultdict(list)
            for r in rows:
                groups[r[key]].append(r)
            lines += [[f"{key}={k}", *figures(g)] for k, g in sorted(groups.items(), key=lambda kv: str(kv[0]))]
        print(table(["", "n", "evidence %", "cells", "with label+header %"], lines))
    print(f"seconds p50 {percentile(seconds, 50):.2f}, p95 {percentile(seconds, 95):.2f}; "
          f"load average {[round(x, 1) for x in os.getloadavg()]}")
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(DATA), help="a TAT-QA-format JSON file (the public dev set by default)")
    p.add_argument("--part", choices=[TUNE, REPORT], default=TUNE)
    p.add_argument("--limit", type=int, default=None, help="ask only the first N questions of the part's seeded order")
    p.add_argument("--skip", type=int, default=0, help="pass over the first N questions of that order (a fresh slice)")
    p.add_argument("--seed", type=int, default=SEED, help="the split, the question order and ruled/unruled")
    p.add_argument("--retrieval-only", action="store_true", help="no model: is the evidence in the reader's passages")
    p.add_argument("--rules-only", action="store_true", help="no model: what code answers alone (every call refused)")
    p.add_argument("--out", default=None, help="JSONL results file (default bench/results/tatqa-PART-MODE.jsonl)")
    p.add_argument("--fresh", action="store_true", help="start the results file again instead of resuming it")
    p.add_argument("--report", type=Path, default=None, help="only print the figures of an existing JSONL file")
    p.add_argument("--keep-answers", action="store_true",
                   help="also write the answers to bench/answers/tatqa_PART.jsonl (the leak test reads them)")
    args = p.parse_args(argv)
    if args.report:
        rows = report(args.report, Path(args.data))
    else:
        out = run(args)
        contexts = json.loads(Path(args.data).read_text())
        pairs = questions_of(split_contexts(contexts, args.seed)[args.part], args.seed, args.limit, args.skip)
        rows = report(out, Path(args.data), {q["uid"] for _, q in pairs})
    if args.keep_answers:
        keep_answers(f"tatqa_{args.part}", [{"id": r["uid"], "question": r["question"], "answer": r["answer"],
                                             "confidence": r.get("confidence"), "correct": bool(r.get("em"))}
                                            for r in rows if "answer" in r])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
