"""Diagnostic: does the seed-000 prompt layout make the small model refuse? (follow-up to answer_quality.py)

    .venv/bin/python bench/prompt_probe.py [--name answer_quality] [--max 10]

Reads bench/results/<name>.jsonl written by bench/answer_quality.py and takes the questions whose
evidence page was in the model's context (the refusals there are not retrieval misses). For each it
re-asks the SAME model with the SAME retrieved context (parsed from the recorded prompts), changing
only the prompt:
  unquoted          reasoner.PROMPT_TEMPLATE's layout and wording, but the refusal line does not quote
                    a sentence to copy: "If the context doesn't contain the answer, say that the
                    documents do not contain it" (answer_quality.py --prompt-variant unquoted-refusal),
  question_last     reasoner.PROMPT_TEMPLATE's exact wording, but the question is moved from before
                    the context to after the instructions (right before "Answer:"),
  question_last_soft  as question_last, and the refusal line reads "Only if none of the sources is
                    relevant to the question, say ..." (the same refusal sentence).
each for the pipeline's selected-sentence context and the baseline's full-chunk context, and
  passage           the pipeline only: the same retrieved chunks and the same budget, the context
                    rebuilt by the current reasoner.build_prompt (the best contiguous passage of each
                    chunk), to compare with the recorded prompt's context (--variants passage).
The original layout's answers are the ones recorded by answer_quality.py in the same knowledge base.
temperature 0.3, max_tokens 500, as in the pipeline. Scored with answer_quality.score_answer.
Writes bench/results/prompt_probe.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, fmt, table, write_json  # noqa: E402
from bench.answer_quality import SHARED, cited_numbers, load_questions, score_answer  # noqa: E402

HEAD = "You are a helpful assistant answering questions based only on the provided document context.\n\n"
ORIGINAL_LAYOUT = """Question: {question}

Context from documents:
{context}

Instructions:
- Answer ONLY based on the provided context
- {style_instruction}
- {refusal_line}
- Cite which source(s) support each claim using [Source N] notation

Answer:"""
TAIL = """Context from documents:
{context}

Instructions:
- Answer ONLY based on the provided context
- {style_instruction}
- {refusal_line}
- Cite which source(s) support each claim using [Source N] notation

Question: {question}

Answer:"""
REFUSAL = 'If the context doesn\'t contain the answer, say "{no_information}"'
REFUSAL_SOFT = 'Only if none of the sources is relevant to the question, say "{no_information}"'
REFUSAL_UNQUOTED = "If the context doesn't contain the answer, say that the documents do not contain it"


def context_of(prompt: str) -> str:
    start = prompt.index("Context from documents:\n") + len("Context from documents:\n")
    return prompt[start:prompt.index("\n\nInstructions:")]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--name", default="answer_quality")
    p.add_argument("--max", type=int, default=10, help="at most this many questions")
    p.add_argument("--variants", default="unquoted,question_last,question_last_soft,passage",
                   help="comma-separated variants to run (default all)")
    p.add_argument("--all-rows", action="store_true", help="every recorded question, not only those with the "
                   "evidence page in context")
    args = p.parse_args(argv)
    chosen = args.variants.split(",")

    from core.agents.reasoner import NO_INFORMATION, STYLE_INSTRUCTIONS, build_prompt, build_sources
    from core.config import load_settings
    from core.embedding import MiniLMEmbedder
    from core.llm import make_llm
    from core.retrieval import RetrievedChunk
    from core.store.catalog import Catalog

    settings = load_settings(data_dir=RESULTS / "kb-answers")
    llm = make_llm(settings)
    catalog = Catalog(settings.catalog_path)
    count_tokens = MiniLMEmbedder().count_tokens

    def passage_prompt(recorded: dict) -> str:
        """The recorded pipeline prompt's question and chunks, its context rebuilt by today's code."""
        prompt_text = recorded["prompt"]
        asked = prompt_text[prompt_text.index("Question: ") + 10:prompt_text.index("\n\nContext from documents:")]
        ids = [c["chunk_id"] for c in recorded["citations"]]
        records = catalog.chunks(ids)
        chunks = [RetrievedChunk.from_record(records[i], 0.0) for i in ids if i in records]
        sources = build_sources(asked, chunks, settings.context_token_budget, count_tokens)
        return build_prompt(asked, sources, settings.answer_style)

    questions = {q["financebench_id"]: q for q in load_questions(SHARED)}
    rows = [json.loads(x) for x in (RESULTS / f"{args.name}.jsonl").read_text().splitlines() if x.strip()]
    if not args.all_rows:
        rows = [r for r in rows if r["pipeline"]["evidence_in_context"] or r["baseline"]["evidence_in_context"]]
    rows = rows[: args.max]
    print(f"{len(rows)} questions" + ("" if args.all_rows else " with the evidence page in context"), flush=True)
    style = STYLE_INSTRUCTIONS.get(settings.answer_style, STYLE_INSTRUCTIONS["concise"])
    variants = {"unquoted": (ORIGINAL_LAYOUT, REFUSAL_UNQUOTED), "question_last": (TAIL, REFUSAL),
                "question_last_soft": (TAIL, REFUSAL_SOFT)}
    variants = {k: v for k, v in variants.items() if k in chosen}
    results = []
    llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0)
    for n, r in enumerate(rows, start=1):
        q = questions[r["financebench_id"]]
        item = {"id": r["id"], "question": q["question"], "gold": q["answer"], "answers": {}}
        for system in ("pipeline", "baseline"):
            item["answers"][f"{system}/original"] = {
                "answer": r[system]["answer"], "score": r["score"][system],
                "prompt_tokens": (r[system].get("tokens_all_calls") or r[system]["tokens"])["prompt"],
                "seconds": r[system]["seconds"]}
            prompt_text = r[system]["prompt"]
            if not prompt_text:
                continue
            context = context_of(prompt_text)
            prompts = {variant: HEAD + layout.format(
                context=context, style_instruction=style,
                refusal_line=refusal.format(no_information=NO_INFORMATION), question=q["question"])
                for variant, (layout, refusal) in variants.items()}
            if system == "pipeline" and "passage" in chosen:
                prompts["passage"] = passage_prompt(r[system])
            for variant, prompt in prompts.items():
                started = time.perf_counter()
                c = llm.complete([{"role": "user", "content": prompt}], max_tokens=500, temperature=0.3)
                answer = c.text.strip()
                item["answers"][f"{system}/{variant}"] = {
                    "answer": answer, "score": score_answer(q, answer), "cited": sorted(cited_numbers(answer)),
                    "prompt_tokens": c.prompt_tokens, "seconds": round(time.perf_counter() - started, 1)}
        results.append(item)
        short = {k: ("OK" if v["score"]["correct"] else ("refusal" if v["score"]["refusal"] else "wrong"))
                 for k, v in item["answers"].items()}
        print(f"{n}/{len(rows)} {r['id']} {short}", flush=True)

    keys = list(dict.fromkeys(k for it in results for k in it["answers"]))
    summary = {}
    for k in keys:
        got = [it["answers"][k] for it in results if k in it["answers"]]
        summary[k] = {"n": len(got), "correct": sum(a["score"]["correct"] for a in got),
                      "refusal": sum(a["score"]["refusal"] for a in got),
                      "prompt_tokens_mean": round(sum(a["prompt_tokens"] for a in got) / len(got), 1)}
    print()
    print(table(["context / prompt layout", "n", "correct", "refusal", "prompt tokens"],
                [[k, v["n"], v["correct"], v["refusal"], fmt(v["prompt_tokens_mean"])] for k, v in summary.items()]))
    path = write_json("prompt_probe", {"source": f"{args.name}.jsonl", "summary": summary, "items": results})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
