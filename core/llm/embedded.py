"""Embedded provider: llama.cpp in-process through the prebuilt `xllamacpp` wheel (no server).

Every call streams internally, so a timeout can stop generation mid-way (the stream callback
returning True cancels the task). One model per process; calls are serialized because one
llama.cpp slot reuses the previous prompt's prefix (the fixed instructions) from its KV cache, and
earlier prompts' states are kept in RAM to restore a longer shared prefix (a table asked about again).

A JSON schema is decoded as compact JSON (one line, ", " and ": " between items): the model's own
indented style spent a newline and indentation on every key, and with it the model also wrote every
optional key ("group_by": "", "limit": 0). On a records plan that halved the tokens written (68 → 36).
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from core.llm.base import ChatLLM, Completion, LLMError, LLMTimeout, LLMUnavailable, Messages, TokenCallback


class EmbeddedLLM(ChatLLM):
    name = "embedded"

    def __init__(
        self, model_path: Path | None, *, cache_dir: Path, threads: int = 2, context_tokens: int = 4096,
        omp_wait_policy: str = "PASSIVE", timeout: float = 300.0, slot_prompt_similarity: float = 0.9,
        prompt_cache_mib: int = 512,
    ) -> None:
        super().__init__(timeout)
        self.model_path = model_path
        self.cache_dir = cache_dir
        self.threads = threads
        self.context_tokens = context_tokens
        self.slot_prompt_similarity = slot_prompt_similarity
        self.prompt_cache_mib = prompt_cache_mib
        self.keeps_prompt_states = prompt_cache_mib > 0
        # With 2 cores and another busy process, OpenMP's spinning threads collapsed generation to
        # 1 token/s; PASSIVE makes them sleep. It must be set before the library starts.
        os.environ.setdefault("OMP_WAIT_POLICY", omp_wait_policy)
        self._server = None
        self._loader: threading.Thread | None = None
        self._load_error: str | None = None
        self._load_lock = threading.Lock()
        self._call_lock = threading.Lock()
        self.model = model_path.name if model_path else "Qwen2.5-Coder-1.5B-Instruct Q4_K_M"

    @property
    def loaded(self) -> bool:
        return self._server is not None

    def _load(self):
        with self._load_lock:
            if self._server is None:
                from core.llm.model_file import ModelFileError, assemble_model

                try:
                    path = self.model_path or assemble_model(self.cache_dir)
                except ModelFileError as exc:
                    raise LLMUnavailable(str(exc)) from exc
                if not Path(path).is_file():
                    raise LLMUnavailable(f"The model file {path} does not exist.")
                import xllamacpp

                params = xllamacpp.CommonParams()
                params.model.path = str(path)
                params.n_ctx = self.context_tokens
                params.n_parallel = 1
                params.cpuparams.n_threads = self.threads
                params.cpuparams_batch.n_threads = self.threads
                params.warmup = False
                params.slot_prompt_similarity = self.slot_prompt_similarity
                params.cache_ram_mib = self.prompt_cache_mib
                params.verbosity = -1  # llama.cpp logs every request at INFO on stderr
                try:
                    self._server = xllamacpp.Server(params)
                except Exception as exc:
                    raise LLMUnavailable(f"The model could not be loaded from {path} ({exc}).") from exc
                self.model = Path(path).name
        return self._server

    @property
    def loading(self) -> bool:
        return self._loader is not None and self._loader.is_alive() and not self.loaded

    def load_in_background(self) -> None:
        """Load the model in a daemon thread (once); a question asked meanwhile waits on the same
        lock instead of loading a second copy. A failure is kept for health() to report."""
        if self.loaded or self._loader is not None:
            return

        def load() -> None:
            try:
                self._load()
            except LLMError as exc:
                self._load_error = str(exc)

        self._loader = threading.Thread(target=load, name="docuchat-model-load", daemon=True)
        self._loader.start()

    def _chat(self, messages: Messages, *, max_tokens, temperature, schema, on_token, timeout) -> Completion:
        server = self._load()
        request: dict = {
            "messages": messages, "max_tokens": max_tokens, "temperature": temperature,
            "stream": True, "cache_prompt": True,
        }
        if schema is not None:
            request["grammar"] = compact_json_grammar(schema)
        pieces: list[str] = []
        state = {"finish": "length", "usage": {}, "timings": {}, "timed_out": False, "error": None}
        deadline = time.monotonic() + timeout

        def on_chunk(chunk) -> bool | None:
            if isinstance(chunk, str):  # an error payload arrives as a JSON string
                state["error"] = chunk
                return True
            if "error" in chunk:
                state["error"] = str(chunk["error"])
                return True
            for choice in chunk.get("choices", []):
                token = (choice.get("delta") or {}).get("content")
                if token:
                    pieces.append(token)
                    if on_token:
                        on_token(token)
                if choice.get("finish_reason"):
                    state["finish"] = choice["finish_reason"]
            state["usage"] = chunk.get("usage") or state["usage"]
            state["timings"] = chunk.get("timings") or state["timings"]
            if time.monotonic() > deadline:
                state["timed_out"] = True
                return True
            return None

        with self._call_lock:
            try:
                server.handle_chat_completions(request, on_chunk)
            except Exception as exc:
                raise LLMError(f"The local model failed: {exc}") from exc
        if state["error"]:
            raise LLMError(f"The local model failed: {state['error'][:300]}")
        if state["timed_out"]:
            raise LLMTimeout(f"The local model did not finish within {timeout:.0f} s.")
        timings = state["timings"]
        usage = state["usage"]
        prompt_tokens = usage.get("prompt_tokens") or (timings.get("prompt_n", 0) + timings.get("cache_n", 0))
        return Completion(
            text="".join(pieces),
            finish_reason=state["finish"],
            prompt_tokens=int(prompt_tokens),
            completion_tokens=int(usage.get("completion_tokens") or timings.get("predicted_n", 0)),
            cached_tokens=int(timings.get("cache_n", 0)),
        )

    def health(self) -> tuple[bool, str]:
        if self.model_path is not None and not Path(self.model_path).is_file():
            return False, f"model file {self.model_path} not found"
        if self.model_path is None:
            from core.llm.model_file import ModelFileError, part_paths

            try:
                part_paths()
            except ModelFileError as exc:
                return False, str(exc)
        if self._load_error:
            return False, self._load_error
        if self.loaded:
            state = "loaded"
        elif self.loading:
            state = "loading in the background…"
        else:
            state = "not loaded yet (loads on the first question)"
        return True, f"{self.model}, in-process, {state}"


_COMPACT = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}


def compact_json_grammar(schema: dict) -> str:
    """An llguidance grammar for `schema` that admits only one-line JSON. (The server's own
    response_format path ignores llguidance's whitespace options, so the grammar is passed as is.)"""
    import xllamacpp

    return xllamacpp.json_schema_to_grammar(json.dumps({"x-guidance": _COMPACT, **schema}))
