"""The one settings object. Every limit and threshold lives here.

Values come from defaults, overridden by environment variables `DOCUCHAT_<FIELD>` (upper case),
so the same code runs on a laptop and against a Chroma server without edits.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, fields
from pathlib import Path

ENV_PREFIX = "DOCUCHAT_"

# Settings that take one of a few words. An unknown word ("olama", "Quote") is refused when the settings
# are made, with the choices, not deep inside the first question (or silently read as the default). The
# embedding model has its own check with the same message (core/embedding.py, EmbeddingModelError).
CHOICES: dict[str, tuple[str, ...]] = {
    "chunking_strategy": ("page", "document"),
    "table_query_form": ("plan", "sql"),
    "llm_provider": ("auto", "embedded", "ollama", "scripted"),
    "llm_omp_wait_policy": ("PASSIVE", "ACTIVE"),
    "answer_style": ("concise", "detailed", "bullet"),
    "reader_form": ("free", "quote", "quote_optional", "calc", "line"),
    "reader_prompt_layout": ("seed", "instructions_first"),
    "answer_mode": ("pipeline", "agent", "auto"),
}
# The domain profiles this app has (core/profiles); `document_profiles` may name any of them, or none.
PROFILE_NAMES = ("sec_filing",)
# What an index built before a parameter existed was built with: it is not asked to re-index for that.
INDEX_PARAMETERS_BEFORE: dict[str, object] = {"document_profiles": "sec_filing"}


class SettingsError(ValueError):
    """A setting the app cannot use; the message names the environment variable and the choices."""


@dataclass(frozen=True)
class Settings:
    # --- where state lives
    data_dir: Path = Path("data/runtime")
    # A second process that wants to write (an ingest while the CLI or another app window ingests)
    # waits this long for the first, saying who it waits for, then gives up with that message.
    # Negative: wait without limit. Readers never wait.
    write_wait_seconds: float = 1800.0

    # --- ingestion limits (bad input gets a clear message, never a hang)
    max_file_mb: float = 100.0
    max_pages: int = 3000
    max_rows_per_sheet: int = 200_000
    # A hostile file (a PDF stream or zip that inflates to gigabytes, a parser that loops) is read
    # in a child process with these bounds, so it costs that process and never the app.
    max_ingest_seconds: float = 1800.0  # one file, parse to index; about 27,000 chunks at 15/s
    max_parse_memory_mb: int = 2048  # the reading process's heap
    max_unpacked_mb: float = 1000.0  # an XLSX's declared uncompressed size
    supported_extensions: tuple[str, ...] = (
        ".pdf", ".xlsx", ".csv", ".txt", ".md", ".jpg", ".jpeg", ".png", ".tif", ".tiff",
    )

    # --- OCR (Tesseract): image files, and PDF pages that show a scan instead of a text layer
    ocr_enabled: bool = True
    ocr_language: str = "eng"  # Tesseract language codes, "eng+deu" for several
    ocr_dpi: int = 300  # PDF pages are rendered at this resolution for OCR (Tesseract reads best near 300)
    ocr_timeout_s: float = 60.0  # per page
    ocr_max_pages: int = 50  # scanned pages read per document
    ocr_min_page_chars: int = 10  # a PDF page with less text than this and an image is a scan
    ocr_min_word_confidence: float = 30.0  # Tesseract's 0-100 word confidence; lower is mostly specks
    ocr_column_gap: float = 1.5  # a gap wider than this many word heights separates two cells of a line
    ocr_heading_lines: int = 6  # a receipt's company name is looked for in its first lines
    # Tesseract's --psm: 6 reads the page as one block of lines, right for receipts, forms and letters
    # (measured better than 3 on the SROIE receipts); 3 finds columns, for scans of multi-column pages.
    ocr_page_segmentation: int = 6

    # --- domain profiles (core/profiles): rules for one kind of document, acting only on the documents
    # they recognise. "sec_filing": a filing's form, registrant and period read off its cover, and the
    # forms a question names ("the latest 10-Q"). Empty: the core's rules alone. Changing it re-indexes.
    document_profiles: tuple[str, ...] = ("sec_filing",)

    # --- chunking: the embedding model truncates at 256 word pieces, so chunks stay below it
    chunking_strategy: str = "page"  # "page" (chunks never cross pages) or "document" (ranges "3-4")
    chunk_size_tokens: int = 200
    chunk_overlap_tokens: int = 30
    max_chunk_tokens: int = 250

    # --- structured facts: every PDF table read from the page layout gives row facts; pdfplumber's
    # ruled-table reading (a second pass over every page) runs on short documents only
    max_table_pages: int = 20
    # Rows of the tables of PDFs longer than max_table_pages as facts, so they become typed tables too
    # (issue 23: "every PDF table is a table"). Off by default until the table route's effect on long
    # filings (FinanceBench, Docugami end to end) is measured: their tables are still read as tables, as
    # grids with their header and scale in every chunk, by the text route's reader.
    long_pdf_table_facts: bool = False
    max_rows_per_answer: int = 10
    max_snippets_per_answer: int = 5
    label_similarity: float = 0.6  # embedding similarity for a column label to match a wanted one
    # --- the table route (issue 14): a question goes to the tables only when it names one. Points
    # (core.annotations.select): a file-name word 3, a cell value 2-3, a column word 1. 3 means a name,
    # a value plus a column, or three columns: one column word alone ("date", "total") names no table.
    table_min_score: float = 3.0
    # Points for a question that reads like a table's card (its names, headers and values), per unit of
    # cosine similarity above the floor: on the records set's dev part the right table was selected first
    # for 41 of 60 questions by words alone, 48 with these (weights 4-12 and floors 0.1-0.25 tried).
    table_similarity_weight: float = 8.0
    table_similarity_floor: float = 0.1
    table_max_selected: int = 2  # tables one query may join; more is a question about several files
    table_close: float = 0.8  # a table within this share of the best score is selected beside it
    # When no table reached table_min_score though one scored table_choice_floor, for a question the
    # rules are sure asks for records, one JSON call picks among the best table_choice_candidates files
    # from their headers and a few values (core.annotations.choose). Right table first, dev: records
    # 53 -> 55 of 60, WikiTableQuestions 79 -> 81 of 118 (docs/tables.md, session 11).
    table_choice_model: bool = True
    table_choice_floor: float = 1.5
    table_choice_candidates: int = 4
    table_choice_values: int = 8  # values shown per candidate: a value or two of each categorical column
    table_choice_max_tokens: int = 12  # '{"table": 2}' is 7 tokens
    table_example_rows: int = 3  # rows shown under each CREATE TABLE (the text-to-SQL form Qwen-Coder knows)
    table_query_max_tokens: int = 200  # the JSON with one query; longer is a runaway
    # How the model asks a table (issue 22): "plan" fills a query plan over the real columns under a JSON
    # schema and code compiles it, checking every stated condition; "sql" writes free SQL (sessions 1-5).
    table_query_form: str = "plan"
    table_plan_max_tokens: int = 160  # a plan with four filters, a group and an order fits in ~90
    table_query_max_rows: int = 1000  # rows a query may return; more is cut and said so
    table_query_timeout_s: float = 5.0  # a SELECT over a laptop's tables takes milliseconds
    # What a question asks for (core.agents.question_kind), when the rules are unsure and a table was
    # selected: one JSON call {kind}. The reply '{\n  "kind": "summary"\n}' is ~12 tokens with the
    # whitespace the constrained decoder writes (12 cut it short on dev), so 24 only bounds a runaway.
    route_kind_max_tokens: int = 24
    # Off: on dev the call was one question worse than the rules' default (records) on the 10 unsure,
    # and on test it said "text" for 22 of 23 unsure (6 right, the default 18; docs/routing.md).
    route_kind_model: bool = False

    # --- document category hints
    long_document_pages: int = 20
    short_document_pages: int = 3
    data_heavy_digit_ratio: float = 0.12
    # long-text route: long documents are summarized in page spans of about this many
    # tokens ("macro-chunks, ~10-20k tokens"); a question searches the best spans, then their pages
    macro_chunk_tokens: int = 12000
    long_text_sections: int = 3
    long_text_fallback_similarity: float = 0.25  # text search weaker than this tries the long-text route

    # --- embeddings
    # "all-MiniLM-L6-v2-int8" (ONNX Runtime, 2.9x the chunks/s) or "all-MiniLM-L6-v2" (torch, the
    # reference); core/embedding.py. Changing it asks for `python -m core reindex`.
    embedding_model: str = "all-MiniLM-L6-v2-int8"
    embedding_dim: int = 384
    embedding_batch_size: int = 32
    embedding_threads: int = 0  # 0: the runtime's default (one per core)

    # --- vector store: embedded by default, a Chroma server when a host is set
    chroma_host: str = ""
    chroma_port: int = 8000
    chroma_collection: str = "chunks"
    hnsw_ef_search: int = 200
    hnsw_ef_construction: int = 200
    hnsw_max_neighbors: int = 32

    # --- retrieval
    top_k: int = 5
    candidate_pool: int = 50  # per retriever, before fusion
    rrf_k: int = 60
    semantic_weight_enumeration: float = 0.3
    semantic_weight_reasoning: float = 0.7
    expand_window: int = 0  # +-N neighbour chunks around each hit
    exact_filter_limit: int = 5000  # a search pre-filtered to this many chunks or fewer ranks them exactly
    # The sections a question needs (a profile's, core/retrieval/sections.py): in a search narrowed to documents,
    # the best chunk of each (`section_pins` sections at most) is put at rank `section_pin_rank` unless one of its
    # chunks is there or above (0: off). Chosen on the dev parts (docs/retrieval.md, section 13).
    section_pin_rank: int = 1
    section_pins: int = 2
    # Search words in the documents' own vocabulary (core/agents/search_words.py), one short model call
    # on the text route; their BM25 and vector rankings are fused beside the question's, each weighted
    # `search_words_weight` times the question's. Off: with Qwen2.5-Coder-1.5B every weight and form tried
    # lowered dev evidence recall (FinanceBench page@5 48.4 -> 32-48 %, Docugami evidence@3 24.4 -> 21-23 %;
    # docs/retrieval.md, section 12); a larger model may write the documents' words better.
    search_words_model: bool = False
    search_words_weight: float = 1.0
    search_words_max_tokens: int = 60
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    # Passage-level re-ranking (core/retrieval/evidence.py): the first `rerank_pool` fused
    # candidates re-ordered by their best window of `rerank_window_units` sentences or rows: the
    # share of the question's terms in the chunk's context line and that window, plus the fused
    # score as a prior (`rerank_embed` adds each window's cosine; `rerank_page_neighbours` also
    # brings in the chunks beside the first hits on their page). Off, as measured
    # (bench/retrieval_quality.py, docs/retrieval.md): the setting below, chosen on the dev parts
    # (Docugami evidence chunk in the top 3: 9 -> 12 of 86; FinanceBench page@3 11 of 25 kept),
    # did not hold on the test parts: FinanceBench page@3 17 -> 13 of 31, Docugami 14 -> 14 of 109.
    # Embedded windows were no better on dev and cost ~9 s a search at load 13.
    passage_rerank: bool = False
    rerank_embed: bool = False
    rerank_pool: int = 10
    rerank_window_units: int = 4
    rerank_lexical_weight: float = 0.5
    rerank_prior_weight: float = 0.3
    rerank_page_neighbours: int = 0  # also re-rank the chunks within +-N of the first hits on their page
    rerank_expand_top: int = 3  # how many of the first hits bring their page neighbours
    rerank_neighbour_prior: float = 1.0  # a page neighbour's fused score: its hit's, times this

    # --- LLM: embedded llama.cpp by default, Ollama when a host is set (the specified defaults)
    llm_provider: str = "auto"  # auto | embedded | ollama | scripted
    # The scripted stand-in writes its words this many a second (0: all at once): a demo or a browser test
    # then sees an answer arrive word by word, as the model's does.
    scripted_words_per_second: float = 0.0
    llm_model_path: Path | None = None  # None: the verified Qwen2.5-Coder-1.5B file
    llm_threads: int = 2
    llm_context_tokens: int = 4096
    llm_omp_wait_policy: str = "PASSIVE"
    llm_timeout_s: float = 300.0
    # The embedded model keeps earlier prompts' KV state in RAM and restores the longest shared prefix
    # (a table's description, the reader's instructions) unless the slot's own prompt already shares this
    # share of the new one. llama.cpp's default, 0.1, kept the slot whenever the fixed instructions were
    # half of it, so a question back on an earlier table re-read the table: 380 of 662 tokens cached,
    # against 642 at 0.9 (records dev, seconds p50 12.8 -> 8.2 with compact JSON: docs/tables.md).
    llm_slot_prompt_similarity: float = 0.9
    llm_prompt_cache_mib: int = 512  # RAM for those states (~28 KB a token: about 25 prompts of 700 tokens)
    # How many tables' plan prompts (instructions and description) the model reads into that cache once it has
    # loaded, while no question waits, so a first question on a table reads ~20 new tokens instead of 200-650
    # (records set: a first plan call 13-23 s, on a warmed table 7-8 s; docs/benchmarks.md). 0: none.
    llm_warm_tables: int = 12
    # Prompt tokens read per second until the provider has timed one of its own calls (DESIGN.md:
    # Qwen2.5-Coder-1.5B Q4_K_M, 2 threads, idle machine: 36): the chat page's first wait estimate.
    llm_prompt_tokens_per_second: float = 36.0
    # The LLM's tokenizer counts about 1.4x the embedder's word pieces (see context_token_budget).
    llm_tokens_per_word_piece: float = 1.4
    ollama_host: str = ""
    ollama_model: str = "qwen2.5-coder:1.5b"
    # Greedy: on the reader's FinanceBench dev questions (16, the evidence page or another filing's) 0.0 and
    # 0.3 answered as many right (4 and 4) and refused another filing's page alike (15 and 15); at 0.3 the
    # same question got different answers between runs (a records refusal, the example questions), which
    # a demo or a benchmark repeated cannot explain (docs/reader.md, session 15).
    answer_temperature: float = 0.0
    answer_max_tokens: int = 500
    answer_style: str = "concise"  # concise | detailed | bullet
    # Evidence in the answer prompt, in the embedder's word pieces (the LLM counts ~1.4x more).
    # A prompt token costs ~30 ms here. Fewer sources with more text each: the first 3 chunks in
    # 320 word pieces (~600 prompt tokens, inside the 400-900) read better than 5 pieces of
    # ~50 each, which the model found too scattered to answer from (bench/reader_quality.py).
    context_token_budget: int = 320
    # A summary reads its section whole: at 320, shared by five passages, the minutes of a four-item meeting were
    # read to their first item (~64 word pieces) and summarised as that item (docs/reports.md, session 46).
    summary_token_budget: int = 640
    # How the model is asked (core.agents.reasoner.READER_FORMS): "quote" returns {quote, source,
    # answer} under a JSON schema and the Validator's check of the quote decides a refusal; "free"
    # is the specified free-text prompt, where the model itself decides (and refused answers that were
    # in front of it). Measured in bench/reader_quality.py, docs/reader.md.
    reader_form: str = "quote"
    # The answer prompt's order (core.agents.reasoner.PROMPT_LAYOUTS): "instructions_first" reads ~110 fewer new
    # tokens an answer (its fixed part is cached) and answered 11 of 24 FinanceBench dev contexts right against the
    # specified order's ("seed") 8 (bench/reader_quality.py, docs/reader.md).
    reader_prompt_layout: str = "instructions_first"
    reader_max_sources: int = 3  # the answer reads at most this many of the retrieved chunks (0: all)
    # ... or one passage per filing the question names, up to this many: a Docugami multi-document
    # question names a company's four 10-Qs, and with 3 passages one quarter was always left out
    # (dev: the filings with a passage stating a reference figure, 23.9 % at 3, 30.7 % at 4;
    # docs/retrieval.md 9b). More passages share the same context_token_budget, so each is shorter.
    reader_max_named_filings: int = 4

    # --- question limits and answer checks
    # Personal data (e-mail addresses, phone numbers, card and account numbers) is always taken out of the
    # question before it is logged or reaches the model. Out of the answer only when this is on (the Chat
    # page's "Hide personal data in answers"): the documents are the user's own, shown on their own
    # machine, and a phone number the handbook prints is the answer to "what is the support number?".
    # Turn it on to show answers on a shared screen; each hidden value then reads "[phone number hidden]".
    redact_answers: bool = False
    # The evidence view (core.evidence): a cited PDF page drawn at this scale (1.0 = 72 dpi; 1.5 draws an
    # A4 page 893 px wide in about 15 ms here), and a cited sheet's rows shown with this many on each side.
    evidence_page_scale: float = 1.5
    evidence_row_context: int = 3
    min_question_chars: int = 10
    max_question_chars: int = 1000
    min_answer_chars: int = 20
    confidence_high_similarity: float = 0.8
    confidence_medium_similarity: float = 0.6
    max_reflection_iterations: int = 3  # answers in all, the first included
    # A follow-up no rule can make standalone is rewritten by one JSON call {standalone_question};
    # a question is ~20-40 tokens, so 80 bounds the call at a few seconds of generation.
    standalone_max_tokens: int = 80

    # --- complex questions: classification, decomposition, self-reflection
    query_decomposition: bool = True
    decomposition_llm: bool = True  # one LLM call when the rules cannot classify or split a question
    decomposition_max_tokens: int = 200
    max_sub_queries: int = 4  # MAX_SUB_QUERIES
    decompose_count_comparative: int = 2  # DECOMPOSE_COUNTS: what the LLM is asked for per type
    decompose_count_multi_step: int = 3
    decompose_count_temporal: int = 2
    sub_query_top_k: int = 10  # hits per sub-query before global dedup (top-10)
    reflection_llm: bool = False  # ask the model "is this sufficient?" (30-60 s a call here)

    # --- document routing over summaries
    document_routing: bool = True
    router_top_k_docs: int = 3  # top_k_docs
    router_max_docs: int = 8  # documents a stated name may select before the name is too vague
    router_cover_chunks: int = 3  # a document's first chunks, where filings and letters name their owner
    router_vocabulary_chunks: int = 30  # chunks per document read to learn which words are ordinary
    # Measured (bench/routing_quality.py): the summaries of filings are mostly their cover's
    # boilerplate, and routing by them below 0.6 lost recall; names route 100% right.
    router_min_similarity: float = 0.6  # best summary similarity below this: unsure, search everything
    router_similarity_margin: float = 0.05  # documents this close to the best one are chosen too
    router_weak_similarity: float = 0.3  # a filtered search whose best hit is below this falls back

    # --- enumeration-aware planning: "list all ..." retrieves broadly
    enumeration_top_k: int = 10

    # --- answer mode and agent mode (bounded tool loop)
    answer_mode: str = "auto"  # pipeline | agent | auto (agent when the question states constraints)
    max_tool_calls: int = 5
    max_iterations: int = 10
    max_reprompts: int = 3
    max_context_citations: int = 5
    max_citation_text_for_llm: int = 2000  # characters of an opened citation shown to the model
    min_plan_steps: int = 2
    max_plan_steps: int = 5
    agent_plan_with_llm: bool = True  # False: the default plan from the constraints, one LLM call fewer
    agent_initial_search: bool = True  # run the plan's first search without a model call
    agent_plan_max_tokens: int = 200
    agent_action_max_tokens: int = 600  # a final action carries the whole answer
    agent_snippet_chars: int = 240  # of each search result in the agent's prompt
    agent_query_max_chars: int = 200
    agent_max_insufficiencies: int = 8
    agent_search_workers: int = 2  # independent searches of one tool call run concurrently
    min_exact_quote_chars: int = 12  # a shorter "quote" proves nothing
    # A quoted answer whose quote and answer hold fewer than this share of the question's key words
    # is low confidence (validator.misread): the due-date question answered from the payment-terms
    # line held 1 of 3. Measured on the recorded reader bench answers (docs/reader.md).
    quote_key_word_share: float = 0.5
    # A quote of 8+ words is found when one stretch of its source matches this share of its words in
    # order, every number exact (validator.near_quote): on the dev part of FinanceBench a model quote
    # that wrote "Mary N. Dillon" for the page's "Ms. Dillon" was refused with the answer in front of it
    # (docs/reader.md, session 3). A found near quote is at most medium confidence.
    near_quote_share: float = 0.85
    # share of a sentence's or a point's words a source must hold to be cited for it when the model cited nothing
    # (agent mode; a free answer such as a summary's points): citations.attribute_markers
    attribution_min_overlap: float = 0.5

    # --- evaluation on the user's own questions (Evaluate page, `python -m core eval`)
    eval_number_tolerance: float = 0.01  # relative: an answer of 280 matches an expected 279.84
    eval_min_word_recall: float = 0.8  # a text answer must hold this share of the expected words
    eval_max_questions: int = 500  # per run; at tens of seconds a question this is already hours

    # --- index rebuild policy when settings change under an existing index
    reindex_on_settings_change: bool = False

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def keyword_index_path(self) -> Path:
        return self.data_dir / "keyword_index"

    @property
    def files_dir(self) -> Path:
        """Copies of ingested originals, so re-indexing never needs the user's file again."""
        return self.data_dir / "files"

    @property
    def evaluations_dir(self) -> Path:
        """Finished evaluation runs (CSV and a summary each), for comparing the next run with them."""
        return self.data_dir / "evaluations"

    @property
    def cache_dir(self) -> Path:
        """Assembled model files; shared by every data dir unless DOCUCHAT_CACHE_DIR says otherwise."""
        return Path(os.environ.get("DOCUCHAT_CACHE_DIR", "data/cache"))

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    def index_parameters(self) -> dict[str, object]:
        """What makes an index incompatible when it changes (admitted limitation)."""
        return {
            "chunking_strategy": self.chunking_strategy,
            "chunk_size_tokens": self.chunk_size_tokens,
            "chunk_overlap_tokens": self.chunk_overlap_tokens,
            "max_chunk_tokens": self.max_chunk_tokens,
            "embedding_model": self.embedding_model,
            "embedding_dim": self.embedding_dim,
            # What the indexed text is made of. v2: PDF statement rows under their column headers,
            # and each chunk prefixed with its document's identity and section heading. An index
            # built before (no such key) is asked to re-index, as after a chunking change.
            "index_text": "v2 table-headers identity heading",
            # the identity line of a filing's chunks is read by its profile
            "document_profiles": ",".join(self.document_profiles),
        }

    def __post_init__(self) -> None:
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise SettingsError(f"{ENV_PREFIX}{name.upper()}={getattr(self, name)!r} is not one of the choices: "
                                    f"{', '.join(allowed)}.")
        unknown = [name for name in self.document_profiles if name not in PROFILE_NAMES]
        if unknown:
            raise SettingsError(f"{ENV_PREFIX}DOCUMENT_PROFILES names {', '.join(map(repr, unknown))}, not one of the "
                                f"profiles: {', '.join(PROFILE_NAMES)} (or none).")

    def replace(self, **changes: object) -> "Settings":
        return dataclasses.replace(self, **changes)


def _coerce(raw: str, current: object) -> object:
    if isinstance(current, bool):
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if isinstance(current, int):
        return int(raw)
    if isinstance(current, float):
        return float(raw)
    if isinstance(current, Path) or current is None:
        return Path(raw) if raw else None
    if isinstance(current, tuple):
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    return raw


def load_settings(**overrides: object) -> Settings:
    """Defaults, then DOCUCHAT_* environment variables, then explicit overrides."""
    defaults = Settings()
    values: dict[str, object] = {}
    for f in fields(Settings):
        raw = os.environ.get(ENV_PREFIX + f.name.upper())
        if raw is not None:
            values[f.name] = _coerce(raw, getattr(defaults, f.name))
    values.update({k: v for k, v in overrides.items() if v is not None})
    if "data_dir" in values:
        values["data_dir"] = Path(values["data_dir"])  # type: ignore[arg-type]
    return Settings(**values)  # type: ignore[arg-type]
