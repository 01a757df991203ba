"""Command line: `python -m core ingest|search|ask|trace|export|facts|docs|delete|reindex|eval|backup|restore`.

Other tools depend on the --json outputs: keep their shapes stable.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import asdict
from pathlib import Path

from core.citations import how_found, location, nearest_sentence, place_citations, quoted_evidence
from core.config import SettingsError, load_settings
from core.safety.flags import flag_label


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="DocuChat from the terminal.")
    parser.add_argument("--data-dir", help="where the knowledge base lives (default: data/runtime)")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="add files (PDF, XLSX, CSV, TXT, MD; JPG, PNG, TIFF by OCR) or folders")
    ingest.add_argument("paths", nargs="+", type=Path)
    ingest.add_argument("--json", action="store_true")

    search = sub.add_parser("search", help="hybrid search, without an LLM")
    search.add_argument("query")
    search.add_argument("--top-k", type=int)
    search.add_argument("--doc", action="append", help="restrict to a document (id or file name)")
    search.add_argument("--expand", type=int, help="add +-N neighbour chunks")
    search.add_argument("--json", action="store_true")

    ask = sub.add_parser("ask", help="answer a question with citations")
    ask.add_argument("question")
    ask.add_argument("--style", choices=["concise", "detailed", "bullet"])
    ask.add_argument("--top-k", type=int)
    ask.add_argument("--mode", choices=["pipeline", "agent", "auto"],
                     help="pipeline, agent (the bounded tool loop) or auto: the agent when the question states "
                          "constraints such as 'at least three searches' (default: the answer_mode setting)")
    ask.add_argument("--json", action="store_true", help="print exactly one JSON object: the response")
    ask.add_argument("--doc", action="append", help="answer from this document only (id or file name); repeatable")
    ask.add_argument("--hide-personal-data", action="store_true",
                     help="show e-mail addresses, phone numbers, card and account numbers in the answer as "
                          "'[phone number hidden]' (default: the redact_answers setting)")
    ask.add_argument("--session", metavar="NAME",
                     help="a conversation kept in the data dir under this name: follow-ups (\"and in 2023?\", "
                          "\"export that table\") read the earlier questions as in Chat; \"new topic\" starts it afresh")

    trace = sub.add_parser("trace", help="show the trace of an answered question")
    trace.add_argument("turn_id")
    trace.add_argument("--json", action="store_true")

    export = sub.add_parser("export", help="write a structured result set, with provenance, as CSV")
    export.add_argument("result_set_id")
    export.add_argument("--out", type=Path, required=True)

    facts = sub.add_parser("facts", help="list stored structured facts")
    facts.add_argument("--doc", help="only this document (id or file name)")
    facts.add_argument("--label", help="only facts with a column matching this label")
    facts.add_argument("--limit", type=int, default=50)
    facts.add_argument("--json", action="store_true")

    docs = sub.add_parser("docs", help="list documents with their status")
    docs.add_argument("--json", action="store_true")

    delete = sub.add_parser("delete", help="remove a document (id or file name) from every store")
    delete.add_argument("doc")

    sub.add_parser("reindex", help="rebuild every document with the current settings")

    backup = sub.add_parser("backup", help="copy the whole knowledge base into a new folder, consistently")
    backup.add_argument("destination", type=Path)
    restore = sub.add_parser("restore", help="copy a backup into a new (empty) data directory")
    restore.add_argument("source", type=Path)
    for command in (backup, restore):
        command.add_argument("--data-dir", help=argparse.SUPPRESS, dest="data_dir_sub")

    evaluate = sub.add_parser("eval", help="answer a question file (CSV or JSONL) and score the answers")
    evaluate.add_argument("file", type=Path, help="questions with expected_answer (and expected_file, expected_page)")
    evaluate.add_argument("--top-k", type=int)
    evaluate.add_argument("--mode", choices=["pipeline", "agent", "auto"], help="as for ask (default: the answer_mode setting)")
    evaluate.add_argument("--out", type=Path, help="write the per-question results as CSV")
    evaluate.add_argument("--compare", type=Path, help="results CSV of an earlier run: which questions got better or worse")
    evaluate.add_argument("--json", action="store_true", help="print exactly one JSON object: totals, calibration, results")
    for command in (ingest, search, ask, trace, export, facts, docs, delete, sub.choices["reindex"], evaluate):
        command.add_argument("--data-dir", help=argparse.SUPPRESS, dest="data_dir_sub")
    return parser


def _expand(paths: list[Path], extensions: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in extensions))
        else:
            files.append(path)
    return files


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    data_dir = args.data_dir_sub or args.data_dir
    try:
        settings = load_settings(data_dir=data_dir)
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "reindex":
        settings = settings.replace(reindex_on_settings_change=True)
    if args.command == "restore":  # before a workspace would create an empty knowledge base there
        return _restore(settings, args)

    from core.embedding import EmbeddingModelError
    from core.workspace import IndexSettingsChanged, Workspace

    try:
        workspace = Workspace(settings)
    except (IndexSettingsChanged, EmbeddingModelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return COMMANDS[args.command](workspace, args)
    finally:
        workspace.close()


def _ingest(workspace, args) -> int:
    from tqdm import tqdm

    files = _expand(args.paths, workspace.settings.supported_extensions)
    if not files:
        print("No files to ingest.", file=sys.stderr)
        return 1
    bar = tqdm(total=len(files), unit="file", disable=args.json or not sys.stderr.isatty(), file=sys.stderr)
    told_waiting = []

    def progress(event) -> None:
        if event.step == "waiting" and not told_waiting:  # said once, with or without a terminal
            told_waiting.append(True)
            print(event.message, file=sys.stderr, flush=True)
        bar.n = round(event.fraction * len(files), 2)
        detail = f" {event.done}/{event.total}" if event.total else ""
        bar.set_description(f"{event.filename[:30]} {event.step}{detail}")
        bar.refresh()

    results = workspace.ingest(files, progress=progress)
    bar.close()
    if args.json:
        print(json.dumps([r.__dict__ for r in results], indent=2))
    else:
        for r in results:
            mark = "ok " if r.ok else "ERR"
            print(f"{mark} {r.filename}: {r.status} - {r.message} ({r.seconds:.1f}s)")
            for warning in r.warnings:  # e.g. scanned pages that need OCR
                print(f"    warning: {warning}")
    return 0 if all(r.ok for r in results) else 1


def _search(workspace, args) -> int:
    doc_ids = workspace.resolve_documents(args.doc) if args.doc else None
    if args.doc and not doc_ids:
        print(f"No indexed document matches {args.doc}.", file=sys.stderr)
        return 1
    result = workspace.search(args.query, top_k=args.top_k, doc_ids=doc_ids, expand=args.expand)
    if args.json:
        print(json.dumps({
            "query": result.query,
            "semantic_weight": result.semantic_weight,
            "timings_ms": result.timings_ms,
            "hits": [h.to_dict() for h in result.hits],
        }, indent=2))
        return 0
    if not result.hits:
        print("No results." if not workspace.is_empty() else "The knowledge base is empty: ingest files first.")
    for n, hit in enumerate(result.hits, start=1):
        where = location(hit.page, hit.sheet, hit.rows)
        ranks = f"bm25 #{hit.bm25_rank or '-'} vector #{hit.vector_rank or '-'}"
        print(f"[{n}] {hit.filename} {where}  score {hit.score:.4f} (sim {hit.similarity:.3f}; {ranks})")
        print("    " + hit.text[:300].replace("\n", " ") + ("..." if len(hit.text) > 300 else ""))
    return 0


def _ask(workspace, args) -> int:
    streamed = not args.json and sys.stdout.isatty()
    printed: list[str] = []

    def on_token(token: str) -> None:
        printed.append(token)
        print(token, end="", flush=True)

    from core.workspace import WorkspaceError

    doc_ids = workspace.resolve_documents(args.doc) if args.doc else None
    if args.doc and not doc_ids:
        print(f"No indexed document matches {args.doc}.", file=sys.stderr)
        return 1
    scope = {"doc_ids": doc_ids} if doc_ids else {}
    options = dict(style=args.style, top_k=args.top_k, mode=args.mode, on_token=on_token if streamed else None,
                   redact_answers=True if args.hide_personal_data else None, **scope)
    if args.session:
        try:
            conversation = workspace.load_conversation(args.session)
        except WorkspaceError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        response, conversation = workspace.chat(conversation, args.question, **options)
        workspace.save_conversation(args.session, conversation)
    else:
        response = workspace.ask(args.question, **options)
    if args.json:
        data = response.to_dict()
        print(json.dumps({key: data[key] for key in (
            "answer", "citations", "confidence", "safety_flags", "reasoning", "timings", "tokens", "trace_id",
            "intent", "route", "structured", "clarification", "insufficiencies", "mode", "understood_as", "nearest")},
                         indent=2))
        return 0
    if response.understood_as:
        print(f"(understood as: {response.understood_as})", file=sys.stderr if streamed else sys.stdout)
    # (as on screen: "[1][2]" where the claim ends, not a run of "[Source 1] [Source 2] …")
    if not printed:  # a records answer, or agent mode's accepted answer, arrives whole, not as a stream
        print(place_citations(response.answer) + "\n")
    elif "".join(printed).strip() != response.answer:  # citations stripped or a disclosure added
        print("\n\nFinal answer:\n" + place_citations(response.answer) + "\n")
    else:
        print("\n")
    if response.nearest:
        print(nearest_sentence(response.nearest) + "\n")
    if said := quoted_evidence(response.answer, [asdict(c) for c in response.citations]):
        print(f"From: {said}\n")
    for c in (c for c in response.citations if c.cited or not any(x.cited for x in response.citations)):
        where = location(c.page, c.sheet, c.rows)
        print(f"[{c.number}] {c.filename} {where} ({how_found(c.matched, c.score)})")
    for gap in response.insufficiencies:
        print(f"missing: {gap['section']}: {gap['missing']}" if gap["section"] else f"missing: {gap['missing']}")
    flags = f"; {'; '.join(flag_label(f) for f in response.safety_flags)}" if response.safety_flags else ""
    print(f"confidence: {response.confidence}{flags}; mode: {response.mode}; trace: {response.trace_id}")
    return 0


def _trace(workspace, args) -> int:
    turn = workspace.turn(args.turn_id)
    if turn is None:
        print(f"No turn with id '{args.turn_id}'.", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(turn["trace"], indent=2))
        return 0
    print(f"Question: {turn['question']}\nAnswer: {turn['answer']}\n")
    for event in turn["trace"]["events"]:
        state = "" if event["status"] == "ok" else f" [{event['status']}]"
        print(f"{event['started_ms']:>9.0f} ms  {event['agent']:<10} {event['kind']:<11} "
              f"{event['duration_ms']:>9.1f} ms  {event['summary']}{state}")
    return 0


def _export(workspace, args) -> int:
    exported = workspace.export_result_set(args.result_set_id)
    if exported is None:
        print(f"No result set '{args.result_set_id}'.", file=sys.stderr)
        return 1
    data, count = exported
    args.out.write_bytes(data)
    print(f"Wrote {count} rows to {args.out}")
    return 0


def _facts(workspace, args) -> int:
    doc_ids = None
    if args.doc:
        doc_ids = workspace.resolve_documents([args.doc])
        if not doc_ids:
            print(f"No indexed document matches '{args.doc}'.", file=sys.stderr)
            return 1
    rows = workspace.search_facts(doc_ids, label=args.label or "")
    if args.json:
        print(json.dumps([r.__dict__ for r in rows[: args.limit]], indent=2))
        return 0
    for row in rows[: args.limit]:
        cells = "; ".join(f"{k}: {v}" for k, v in row.properties.items())
        print(f"{row.filename} {row.location()}  {cells}")
    print(f"{len(rows)} facts" + (f" (showing {args.limit})" if len(rows) > args.limit else ""))
    return 0


def _docs(workspace, args) -> int:
    records = workspace.documents()
    if args.json:
        summaries = workspace.document_summaries()
        print(json.dumps([{**r.__dict__, "summary": summaries.get(r.doc_id)} for r in records], indent=2))
        return 0
    pending = workspace.pending_elsewhere()
    if not records and not pending:
        print("No documents yet.")
    types = {doc_id: summary["document_type"] for doc_id, summary in workspace.document_summaries().items()}
    for r in records:
        detail = (f"{types.get(r.doc_id, 'Document')}, {r.pages or 0} pages, {r.n_chunks} chunks, {r.category}"
                  if r.status == "indexed" else (r.error or ""))
        print(f"{r.doc_id}  {r.status:9}  {r.filename}  ({detail})")
    listed = {r.filename for r in records if r.status == "indexing"}
    for position, filename in enumerate(pending):  # the batch's first pending file is the one it reads now
        if filename not in listed:
            where = "being read by" if position == 0 else "queued in the batch of"
            print(f"{'-':13}  {'indexing':9}  {filename}  ({where} another DocuChat process)")
    counts = workspace.counts()
    print(f"{counts['documents']} documents, {counts['chunks']} chunks indexed")
    return 0


def _delete(workspace, args) -> int:
    removed = workspace.delete(args.doc)
    if not removed:
        print(f"No document matches '{args.doc}'.", file=sys.stderr)
        return 1
    print("Deleted: " + ", ".join(removed))
    return 0


def _reindex(workspace, args) -> int:
    results = workspace.reindex_all()
    print(f"Re-indexed {sum(r.ok for r in results)} of {len(results)} documents.")
    return 0 if all(r.ok for r in results) else 1


def _eval(workspace, args) -> int:
    from dataclasses import asdict

    from tqdm import tqdm

    from core.evaluate import (QuestionFileError, ResultsFileError, compare_runs, parse_questions, read_results_csv,
                               results_csv)
    from core.evaluate.report import text_report

    try:
        questions = parse_questions(args.file.read_bytes(), args.file.name, workspace.settings.eval_max_questions)
        previous = read_results_csv(args.compare.read_bytes()) if args.compare else None
    except (OSError, QuestionFileError, ResultsFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for problem in questions.problems:
        print(f"warning: {problem}", file=sys.stderr)
    bar = tqdm(total=len(questions.questions), unit="question", disable=args.json or not sys.stderr.isatty(),
               file=sys.stderr)

    # Saved after every answer, as on the Evaluate page: an interrupted run loses nothing.
    run = workspace.evaluate(questions.questions, args.file.name, mode=args.mode, top_k=args.top_k,
                             on_progress=lambda run, total: bar.update(1))
    bar.close()
    if args.out:
        args.out.write_bytes(results_csv(run.results))
    comparison = compare_runs(previous, run.results) if previous is not None else None
    if args.json:
        print(json.dumps({**run.summary(), "problems": questions.problems,
                          "results": [asdict(r) for r in run.results],
                          "comparison": asdict(comparison) if comparison is not None else None}, indent=2))
        return 0
    print(text_report(run, comparison))
    return 0


def _backup(workspace, args) -> int:
    from core.workspace import BackupError

    try:
        manifest = workspace.backup(args.destination)
    except BackupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Backed up {manifest['documents']} documents ({manifest['chunks']} chunks, vectors {manifest['vectors']}) "
          f"to {args.destination}")
    return 0


def _restore(settings, args) -> int:
    from core.workspace import BackupError, Workspace

    try:
        manifest = Workspace.restore(args.source, settings)
    except BackupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Restored {manifest['documents']} documents from the backup of {manifest['created_at']} "
          f"into {settings.data_dir}; the first start checks every store.")
    return 0


COMMANDS = {"eval": _eval, "ingest": _ingest, "search": _search, "ask": _ask, "trace": _trace, "export": _export, "facts": _facts, "docs": _docs, "delete": _delete, "reindex": _reindex, "backup": _backup}
