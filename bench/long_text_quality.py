"""Does the long-text route (seed 004: section summaries, then segments within the best sections)
find evidence better than hybrid search over everything? Page and document recall on the 46-PDF
finance knowledge base. No LLM.

    .venv/bin/python bench/long_text_quality.py [--source bench/results/kb-finance] [--limit N] [--sections 3]

1. Copies --source (built by bench/retrieval_quality.py) to a temporary folder and opens the copy.
   Documents ingested before section summaries existed get them added to the copy, made exactly
   as ingest makes them (core.ingest.summary.section_summaries over the stored original).
2. For every FinanceBench and Docugami 10-Q question: hybrid search over everything, and the
   long-text route (core.retrieval.long_text.summary_then_segment) with --sections spans; top 5.
3. Scores as bench/retrieval_quality.py: FinanceBench evidence-page recall@5 and document recall@5,
   Docugami document recall@5; plus how often a chosen span holds an evidence page, and query time.
"""
from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, describe_code, p50_p95, table, write_json  # noqa: E402
from bench.retrieval_quality import (  # noqa: E402
    SHARED, load_docugami, load_financebench, pct, rate, score_docugami, score_financebench,
)
from bench.routing_quality import CachedEmbedder  # noqa: E402


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, default=RESULTS / "kb-finance")
    p.add_argument("--limit", type=int, default=None, help="first N questions of each set")
    p.add_argument("--sections", type=int, default=None, help="spans searched (default: the setting)")
    p.add_argument("--shared", type=Path, default=SHARED)
    return p.parse_args(argv)


def add_missing_sections(ws) -> int:
    from core.ingest.categories import category_hints
    from core.ingest.loaders import load_document
    from core.ingest.summary import section_summaries

    have = ws.kb.section_summary_documents()
    added = 0
    for d in ws.kb.documents():
        if d.status != "indexed" or d.doc_id in have:
            continue
        document = load_document(Path(d.stored_path), ws.settings, filename=d.filename)
        if "long" not in category_hints(document, ws.settings):
            continue
        sections = section_summaries(document, ws.settings.macro_chunk_tokens)
        vectors = ws.embedder.inner.embed([s.text for s in sections]) if sections else []
        with ws.kb.writing():  # the copy only
            ws.kb.add_summaries(d.doc_id, sections=list(zip(sections, vectors)))
        added += 1
        print(f"  {d.filename}: {len(sections)} sections", file=sys.stderr, flush=True)
    return added


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from core.config import load_settings
    from core.embedding import shared_embedder
    from core.retrieval.long_text import summary_then_segment
    from core.workspace import Workspace

    print(describe_code())
    with tempfile.TemporaryDirectory(prefix="longtext-kb-") as tmp:
        copy = Path(tmp) / "kb"
        shutil.copytree(args.source, copy)
        settings = load_settings(data_dir=copy)
        sections = args.sections or settings.long_text_sections
        ws = Workspace(settings, CachedEmbedder(shared_embedder(settings)))
        print(f"added section summaries for {add_missing_sections(ws)} long documents")
        kb_files = [d.filename for d in ws.kb.documents() if d.status == "indexed"]
        fin = load_financebench(args.shared, args.limit)
        dg = load_docugami(args.shared, args.limit)
        rows = {"hybrid": {"fin": [], "dg": []}, "long-text": {"fin": [], "dg": []}}
        times = {"hybrid": [], "long-text": []}
        span_hits = []
        for kind, question, q in [("fin", q["question"], q) for q in fin] + [("dg", q["Question"], q) for q in dg]:
            ws.embedder.embed([question])
            started = time.perf_counter()
            hybrid = ws.retriever.search(question, top_k=5, expand=0).hits
            times["hybrid"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            routed = summary_then_segment(ws.retriever, question, 5, sections)
            times["long-text"].append((time.perf_counter() - started) * 1000)
            long_hits = routed[0].hits if routed else hybrid
            for name, hits in (("hybrid", hybrid), ("long-text", long_hits)):
                rows[name][kind].append(score_financebench(q, hits) if kind == "fin" else score_docugami(q, hits, kb_files))
            if kind == "fin" and routed:
                names = {d.doc_id: Path(d.filename).stem for d in ws.kb.documents()}
                evidence = {(q["doc_name"], int(e["evidence_page_num"]) + 1) for e in q["evidence"]}
                span_hits.append(any(names.get(s.doc_id) == doc and s.page_start <= page <= s.page_end
                                     for s in routed[1] for doc, page in evidence))
        ws.close()
    result = {name: {"fin_page@5": rate(r["fin"], "page_rank", 5), "fin_doc@5": rate(r["fin"], "doc_rank", 5),
                     "dg_doc@5": rate(r["dg"], "doc_rank", 5), "ms": p50_p95(times[name])}
              for name, r in rows.items()}
    result["evidence_in_chosen_spans"] = round(sum(span_hits) / len(span_hits), 4) if span_hits else None
    print(table(["route (top 5)", "FinanceBench page@5", "FinanceBench doc@5", "Docugami doc@5", "p50 ms"],
                [[n, pct(v["fin_page@5"]), pct(v["fin_doc@5"]), pct(v["dg_doc@5"]), f"{v['ms']['p50']:.1f}"]
                 for n, v in result.items() if isinstance(v, dict)]))
    print(f"FinanceBench evidence page inside one of the {sections} chosen spans: {pct(result['evidence_in_chosen_spans'])}")
    write_json("long_text_quality", {"sections": sections, **result})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
