"""LLM access: one interface (complete, complete_json, stream), three providers."""
from __future__ import annotations

from core.config import Settings
from core.llm.base import ChatLLM, Completion, LLMError, LLMTimeout, LLMUnavailable

__all__ = ["ChatLLM", "Completion", "LLMError", "LLMTimeout", "LLMUnavailable", "make_llm"]


def make_llm(settings: Settings) -> ChatLLM:
    """The configured provider. 'auto' uses Ollama when a host is set, else the embedded model."""
    provider = settings.llm_provider
    if provider == "auto":
        provider = "ollama" if settings.ollama_host else "embedded"
    if provider == "ollama":
        from core.llm.ollama_provider import OllamaLLM

        return OllamaLLM(settings.ollama_host or "http://127.0.0.1:11434", settings.ollama_model, settings.llm_timeout_s)
    if provider == "scripted":
        from core.llm.scripted import ScriptedLLM

        return ScriptedLLM(words_per_second=settings.scripted_words_per_second)
    if provider == "embedded":
        from core.llm.embedded import EmbeddedLLM

        return EmbeddedLLM(
            settings.llm_model_path, cache_dir=settings.cache_dir, threads=settings.llm_threads,
            context_tokens=settings.llm_context_tokens, omp_wait_policy=settings.llm_omp_wait_policy,
            timeout=settings.llm_timeout_s, slot_prompt_similarity=settings.llm_slot_prompt_similarity,
            prompt_cache_mib=settings.llm_prompt_cache_mib,
        )
    raise ValueError(f"Unknown LLM provider {provider!r}: use auto, embedded, ollama or scripted.")
