"""Ollama provider: the official `ollama` client, for when a model server runs elsewhere."""
from __future__ import annotations

from core.llm.base import ChatLLM, Completion, LLMError, LLMTimeout, LLMUnavailable, Messages


class OllamaLLM(ChatLLM):
    name = "ollama"

    def __init__(self, host: str, model: str, timeout: float = 300.0) -> None:
        super().__init__(timeout)
        import ollama

        self.host = host
        self.model = model
        self.client = ollama.Client(host=host, timeout=timeout)

    def _chat(self, messages: Messages, *, max_tokens, temperature, schema, on_token, timeout) -> Completion:
        import httpx
        import ollama

        options = {"temperature": temperature, "num_predict": max_tokens}
        try:
            stream = self.client.chat(
                model=self.model, messages=messages, options=options, stream=True,
                format=schema if schema is not None else None,
            )
            pieces: list[str] = []
            last = None
            for part in stream:
                token = part.message.content or ""
                if token:
                    pieces.append(token)
                    if on_token:
                        on_token(token)
                last = part
        except httpx.TimeoutException as exc:
            raise LLMTimeout(f"Ollama at {self.host} did not answer within {timeout:.0f} s.") from exc
        except (httpx.ConnectError, ConnectionError) as exc:
            raise LLMUnavailable(f"Ollama at {self.host} is not reachable.") from exc
        except ollama.ResponseError as exc:
            raise LLMError(f"Ollama refused the request: {exc.error}") from exc
        done_reason = getattr(last, "done_reason", None) or "stop"
        return Completion(
            text="".join(pieces),
            finish_reason="length" if done_reason == "length" else "stop",
            prompt_tokens=int(getattr(last, "prompt_eval_count", 0) or 0),
            completion_tokens=int(getattr(last, "eval_count", 0) or 0),
        )

    def health(self) -> tuple[bool, str]:
        try:
            names = [m.model for m in self.client.list().models]
        except Exception:
            return False, f"Ollama at {self.host} is not reachable"
        if not any(n == self.model or n.split(":")[0] == self.model for n in names):
            return False, f"Ollama at {self.host} has no model '{self.model}' (ollama pull {self.model})"
        return True, f"{self.model} on Ollama at {self.host}"
