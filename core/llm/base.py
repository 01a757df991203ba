"""The one small LLM interface every agent uses: complete, complete_json, stream."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Callable

Messages = list[dict[str, str]]
TokenCallback = Callable[[str], None]


class LLMError(RuntimeError):
    """The model could not answer; the message is fit to show to a user."""


class LLMUnavailable(LLMError):
    pass


class LLMTimeout(LLMError):
    pass


class LLMMalformedJSON(LLMError):
    """The reply was not the JSON object asked for: a bad answer, not a broken model."""

    def __init__(self, message: str, completion: "Completion") -> None:
        super().__init__(message)
        self.completion = completion


@dataclass
class Completion:
    text: str
    finish_reason: str  # "stop" | "length"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached_tokens: int = 0  # prompt tokens served from the reused prefix


class ChatLLM:
    """Providers implement `_chat`; everything else is shared."""

    name = "llm"
    model = ""

    def _chat(
        self, messages: Messages, *, max_tokens: int, temperature: float, schema: dict | None,
        on_token: TokenCallback | None, timeout: float,
    ) -> Completion:
        raise NotImplementedError

    def __init__(self, timeout: float = 300.0) -> None:
        self.timeout = timeout

    def complete(self, messages: Messages, *, max_tokens: int = 500, temperature: float = 0.3) -> Completion:
        return self._timed(messages, max_tokens, temperature, None, None)

    def stream(
        self, messages: Messages, on_token: TokenCallback, *, max_tokens: int = 500, temperature: float = 0.3
    ) -> Completion:
        return self._timed(messages, max_tokens, temperature, None, on_token)

    def complete_json(
        self, messages: Messages, schema: dict, *, max_tokens: int = 300, temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> tuple[dict, Completion]:
        """A JSON object that matches `schema` (constrained decoding where the provider has it);
        `on_token` sees the raw JSON text as it is written."""
        completion = self._timed(messages, max_tokens, temperature, schema, on_token)
        try:
            value = json.loads(completion.text)
        except json.JSONDecodeError as exc:
            raise LLMMalformedJSON(f"The model returned malformed JSON ({exc.msg}).", completion) from exc
        if not isinstance(value, dict):
            raise LLMMalformedJSON("The model returned JSON that is not an object.", completion)
        return value, completion

    def _timed(self, messages, max_tokens, temperature, schema, on_token) -> Completion:
        started = time.perf_counter()
        completion = self._chat(
            messages, max_tokens=max_tokens, temperature=temperature, schema=schema,
            on_token=on_token, timeout=self.timeout,
        )
        completion.seconds = round(time.perf_counter() - started, 3)
        return completion

    def health(self) -> tuple[bool, str]:
        """(usable, a sentence for the status page). Must not load a model."""
        return True, self.name
