"""The wired-up application core, and the only way into it: the pages, the CLI and the
benchmarks call Workspace (documents, ask and chat, conversations, turns and traces, result sets
and export, facts, evaluation, backup) and never the stores behind it.
"""
from __future__ import annotations

import json
import re
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from core.agents import AnswerPipeline, Response
from core.agents.agent_mode import AGENT, AgentMode, choose_mode
from core.config import Settings, load_settings
from core.conversation import Conversation, update_summary
from core.conversation.summary import ResultSetCommand, result_set_command
from core.embedding import Embedder, shared_embedder
from core.ingest.pipeline import Ingestor
from core.llm import ChatLLM, make_llm
from core.retrieval.hybrid import HybridRetriever
from core.store import IndexSettingsChanged
from core.store.backup import BackupError, backup, restore
from core.store.knowledge_base import KnowledgeBase
from core.suggestions import DocumentFacts

# The errors a caller handles, named here so that no caller imports the stores.
__all__ = ["BackupError", "IndexSettingsChanged", "Workspace", "WorkspaceError"]

# A conversation's name is a file name in the data dir: letters, digits, "-" and "_" only.
_CONVERSATION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class WorkspaceError(ValueError):
    """A request the workspace refuses, with a message for the user (a bad conversation name)."""


class Workspace:
    def __init__(
        self, settings: Settings | None = None, embedder: Embedder | None = None, llm: ChatLLM | None = None
    ) -> None:
        self.settings = settings or load_settings()
        self.embedder = embedder or shared_embedder(self.settings)
        self.kb = KnowledgeBase(self.settings, self.embedder)
        self.ingestor = Ingestor(self.kb, self.settings)
        self.retriever = HybridRetriever(self.kb, self.settings)
        self.llm = llm or make_llm(self.settings)  # providers load their model on first use
        self.pipeline = AnswerPipeline(self.kb, self.retriever, self.llm, self.settings)
        self.agent = AgentMode(self.kb, self.retriever, self.llm, self.settings, self.pipeline.facts)
        self.reindexed_on_open = []
        self._asking = 0  # questions being answered now (the app may answer from several threads)
        self._asking_lock = threading.Lock()
        if self.kb.parameter_changes:  # only reached when re-indexing on change is allowed
            self.reindexed_on_open = self.ingestor.reindex_all()

    def prepare(self) -> None:
        """Load the models before the first question: the embedding model now (with the torch reference
        its import took most of the 19 s of a first scripted answer on a restarted app; the int8 model
        loads in well under a second, but exports itself first if the set-up script did not), then the
        language model in the background."""
        self.embedder.embed(["warm up"])
        self.llm.load_in_background()
        self._warm_in_background()

    def _warm_in_background(self) -> None:
        if self.llm.keeps_prompt_states and self.settings.llm_warm_tables > 0:
            threading.Thread(target=self.warm_tables, name="docuchat-warm-tables", daemon=True).start()

    def warm_tables(self) -> list[str]:
        """Have the model read the tables' plan prompts now, so the first question on each does not (what prepare
        starts in the background once the model loads; it stops when a question is asked). The tables read."""
        if not self.llm.keeps_prompt_states or self.settings.llm_warm_tables <= 0:
            return []
        return self.pipeline.warm_table_plans(self.settings.llm_warm_tables, idle=lambda: self._asking == 0)

    def ask(self, question: str, mode: str | None = None, **options) -> Response:
        """Answer one question (options: style, top_k, on_token, on_event, previous_question,
        previous_result_set, doc_ids, search_in, redact_answers). mode: pipeline | agent | auto (default: the answer_mode
        setting). A command on the previous result set ("show the rest", "export that table") is read
        here, once, and always runs in the pipeline, as does a question scoped to documents (`ask --doc`,
        or search_in, the benchmarks' diagnostic that restricts the text searches only)."""
        with self._asking_lock:  # (the background warming of tables gives way)
            self._asking += 1
        try:
            previous = options.pop("previous_result_set", None)
            command = result_set_command(question or "") if previous else None
            if command or options.get("doc_ids") or options.get("search_in"):
                return self.pipeline.ask(question, result_set=ResultSetCommand(command, previous) if command else None,
                                         **options)
            options.pop("search_in", None)
            if choose_mode(question or "", mode or self.settings.answer_mode) == AGENT:
                return self.agent.ask(question, **options)
            return self.pipeline.ask(question, **options)
        finally:
            with self._asking_lock:
                self._asking -= 1

    # --- conversation -----------------------------------------------------------------------

    def chat(self, conversation: Conversation, question: str, **options) -> tuple[Response, Conversation]:
        """Answer `question` as the next turn of `conversation` (a follow-up is read against its last
        question, "show the rest" and "export that" against its last result set), and return the
        conversation after it: started afresh on "new topic", unchanged by a question that was not
        answered (unsafe, too short, or a follow-up that could not be read) and by a command on the last
        result set, else with this exchange in its rolling summary (options as for ask). The Chat page and `ask --session` both come here."""
        response = self.ask(question, previous_question=conversation.last_question,
                            previous_subject=conversation.last_subject,
                            previous_result_set=conversation.result_set_id, **options)
        base = Conversation() if response.new_topic else conversation
        paged = conversation.result_set_id and result_set_command(question or "")  # "show the rest" of it
        if response.route == "none" or not response.question or paged:  # the next follow-up reads the last question
            return response, base
        result_set_id = (response.structured or {}).get("result_set_id")
        return response, update_summary(base, response.question, response.answer, self.embedder.count_tokens,
                                        result_set_id=result_set_id, subject=(response.structured or {}).get("subject") or "")

    def load_conversation(self, name: str) -> Conversation:
        """The named conversation kept in the data dir (`ask --session NAME`); empty when new."""
        path = self._conversation_path(name)
        if not path.exists():
            return Conversation()
        data = json.loads(path.read_text(encoding="utf-8"))
        return Conversation(data.get("summary", ""), data.get("last_question", ""),
                            [tuple(e) for e in data.get("exchanges", [])], data.get("result_set_id"),
                            data.get("last_subject", ""))

    def save_conversation(self, name: str, conversation: Conversation) -> None:
        path = self._conversation_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(conversation), ensure_ascii=False, indent=1), encoding="utf-8")
        temporary.replace(path)  # a crash mid-write leaves the previous conversation, not half a file

    def _conversation_path(self, name: str) -> Path:
        # Kept beside the knowledge base, not at a path of the user's choosing: a conversation names
        # this data dir's result sets and turns, and means nothing against another one.
        if not _CONVERSATION_NAME.match(name or ""):
            raise WorkspaceError(f"A conversation name is 1-64 letters, digits, '-' or '_', not {name!r}.")
        return self.settings.data_dir / "conversations" / f"{name}.json"

    # --- turns, traces and result sets -----------------------------------------------------

    def recent_turns(self, limit: int = 50) -> list[dict]:
        """The latest answered questions, newest first, each with its response and trace."""
        return self.kb.catalog.recent_turns(limit=limit)

    def turn(self, turn_id: str) -> dict | None:
        """One answered question with its response and trace (None when there is no such turn)."""
        return self.kb.catalog.turn(turn_id)

    def result_rows(self, result_set_id: str) -> list | None:
        """The facts of a stored result set (None when it is gone), in their stored order."""
        stored = self.kb.catalog.result_set(result_set_id)
        if stored is None:
            return None
        return self.pipeline.facts.rows_by_id(stored["fact_ids"])

    def export_result_set(self, result_set_id: str) -> tuple[bytes, int] | None:
        """The whole stored result set of a structured answer as CSV with provenance, and its size."""
        rows = self.result_rows(result_set_id)
        if rows is None:
            return None
        return self.export_facts(rows), len(rows)

    @staticmethod
    def export_facts(rows: list) -> bytes:
        """Fact rows as CSV: every column of every row, then file, page, sheet and row."""
        from core.exports import export_annotations_csv

        return export_annotations_csv(rows)

    # --- evidence -----------------------------------------------------------------------------

    def evidence_page(self, citation: dict, hide_personal_data: bool = False):
        """A cited PDF page as an image with the quoted words (else the cited passage) highlighted, personal
        data covered if asked (core.evidence.PageImage); None for a source that is no PDF page or whose file
        is gone."""
        from core.evidence import first_page, page_image

        record = self.kb.catalog.document(citation.get("doc_id", ""))
        page = first_page(citation.get("page"))
        if record is None or page is None or not record.stored_path or not record.filename.lower().endswith(".pdf"):
            return None
        phrases = [citation.get("quote") or citation.get("snippet") or ""]
        return page_image(Path(record.stored_path), page, phrases, self.settings.evidence_page_scale,
                          hide_personal_data)

    def evidence_rows(self, citation: dict, hide_personal_data: bool = False):
        """A cited sheet's or CSV's rows among their neighbours, the cited ones marked, personal data hidden if
        asked (core.evidence.CitedRows); None for a source that names no rows."""
        from core.evidence import cited_rows, row_span

        span = row_span(citation.get("rows"))
        if span is None or not citation.get("doc_id"):
            return None
        facts = self.search_facts(doc_ids=[citation["doc_id"]])
        found = cited_rows(facts, citation.get("sheet"), span, self.settings.evidence_row_context, hide_personal_data)
        return found if found.rows else None

    # --- facts ------------------------------------------------------------------------------

    def tables_named(self, question: str, with_model: bool = False):
        """The stored tables a question would be answered from (a core.annotations.route.TableRoute:
        selected and ranked tables, the rule parse, the record lookup), without answering it: the
        table route's first step, which the benchmarks score on its own. None when no table is stored.
        `with_model`: as an answer chooses, asking the model where the words could not tell tables apart."""
        return self.pipeline.finder.find(question, with_model=with_model)

    def typed_tables(self) -> list:
        """The typed tables questions about records are answered from (core.annotations.tables.TableInfo:
        columns with their printed labels, types, units, date twins, categories, rows set aside), built
        first if the documents changed."""
        return self.pipeline.tables.tables()

    def search_facts(self, doc_ids: list[str] | None = None, label: str = "", value: str = "") -> list:
        """Stored facts, optionally of some documents, with a column like `label` (holding `value`
        when given) or, with only a value, mentioning it anywhere."""
        from core.annotations.search import Condition, FactQuery

        query = FactQuery(doc_ids=doc_ids or None)
        if label:
            query.conditions.append(Condition(label, "contains", value or ""))
        elif value:
            query.text = [value]
        return self.pipeline.facts.search(query)

    # --- documents ---------------------------------------------------------------------------

    def documents(self) -> list:
        """Every document record (indexed, indexing or failed), as the catalog lists them."""
        return self.kb.documents()

    def document_summaries(self) -> dict[str, dict]:
        return self.kb.document_summaries()

    def indexed_filenames(self) -> set[str]:
        return {d.filename for d in self.kb.documents() if d.status == "indexed"}

    def counts(self) -> dict[str, int]:
        """documents, chunks and facts in the knowledge base."""
        return self.kb.counts()

    def is_empty(self) -> bool:
        return self.kb.is_empty()

    def resolve_documents(self, names_or_ids: list[str]) -> list[str]:
        """Document ids for ids or file names (what `--doc` accepts); unknown ones are left out."""
        return self.kb.resolve_documents(names_or_ids)

    def pending_elsewhere(self) -> list[str]:
        """Files another DocuChat process is indexing into this data dir now, in batch order."""
        return self.kb.pending_elsewhere()

    def ingest(self, paths: list[Path], progress=None, names: list[str] | None = None) -> list:
        """Add files; one IngestResult each (a failed file does not stop the batch). Their tables' plan prompts are
        then read ahead in the background, as at start."""
        results = self.ingestor.ingest_paths(paths, progress=progress, names=names)
        if any(r.ok for r in results):
            self._warm_in_background()
        return results

    def reindex_document(self, doc_id: str):
        return self.ingestor.reindex_document(doc_id)

    def reindex_all(self) -> list:
        """Every document rebuilt with the current settings (done already when opening required it)."""
        return self.reindexed_on_open or self.ingestor.reindex_all()

    def delete(self, doc_id_or_filename: str) -> list[str]:
        """Remove a document from every store; the file names removed."""
        return self.ingestor.delete(doc_id_or_filename)

    def search(self, query: str, top_k: int | None = None, doc_ids: list[str] | None = None,
               expand: int | None = None):
        """Hybrid search without the model (`core search`)."""
        return self.retriever.search(query, top_k=top_k, doc_ids=doc_ids, expand=expand)

    def backup(self, destination: Path) -> dict:
        """A consistent copy of the whole knowledge base in a new folder; its manifest."""
        return backup(self.kb, destination)

    @staticmethod
    def restore(source: Path, settings: Settings) -> dict:
        """A backup copied into a new, empty data dir (before any Workspace opens it); its manifest."""
        return restore(source, settings)

    # --- evaluation --------------------------------------------------------------------------

    def evaluate(self, questions: list, source_name: str = "", mode: str | None = None, top_k: int | None = None,
                 on_progress: Callable | None = None, should_stop: Callable[[], bool] | None = None):
        """Answer and score a question set as Chat answers it, saved under the evaluations folder
        after every answer (a run that is stopped or cut short keeps what it measured)."""
        from core.evaluate import run_evaluation

        return run_evaluation(questions, lambda question: self.ask(question, mode=mode, top_k=top_k), self.settings,
                              source_name=source_name, on_progress=on_progress, should_stop=should_stop,
                              folder=self.settings.evaluations_dir)

    def evaluate_in_background(self, questions: list, source_name: str = "", mode: str | None = None):
        """evaluate() in a thread, for the Evaluate page: it goes on when the page is left and
        stops after the answer in progress when asked."""
        from core.evaluate.background import BackgroundEvaluation

        return BackgroundEvaluation(
            lambda on_progress, should_stop: self.evaluate(questions, source_name, mode, on_progress=on_progress,
                                                           should_stop=should_stop),
            len(questions),
        ).start()

    def document_facts(self) -> list[DocumentFacts]:
        """What the empty chat's overview and example questions are built from: each indexed
        document's name, kind, type, topics and stored table columns."""
        summaries = self.kb.document_summaries()
        return [
            DocumentFacts(d.filename, d.kind or "", summaries.get(d.doc_id, {}).get("document_type", ""),
                          summaries.get(d.doc_id, {}).get("key_topics", []), self.pipeline.facts.columns([d.doc_id]))
            for d in self.kb.documents() if d.status == "indexed"
        ]

    def status(self) -> dict[str, object]:
        """What the home page and `docs` show: knowledge-base size and where things run."""
        documents = self.kb.documents()
        counts = self.kb.counts()
        llm_ready, llm_status = self.llm.health()
        return {
            "documents": counts["documents"],
            "chunks": counts["chunks"],
            "facts": counts["facts"],
            "failed": [d.filename for d in documents if d.status == "failed"],
            "embedding_model": self.embedder.model_name,
            "vector_store": self.kb.vectors.location,
            "llm_provider": self.llm.name,
            "llm_ready": llm_ready,
            "llm_status": llm_status,
            "data_dir": str(self.settings.data_dir),
        }

    def close(self) -> None:
        self.kb.close()
