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
    first_token_seconds: float | None = None  # time to the first streamed token: reading the prompt


class ChatLLM:
    """Providers implement `_chat`; everything else is shared."""

    name = "llm"
    model = ""
    # Whether earlier prompts' states are kept and a new prompt's longest shared prefix restored from them (the
    # embedded model's RAM cache): reading a prompt ahead of its question then pays (warm_plan_prompts).
    keeps_prompt_states = False

    def _chat(
        self, messages: Messages, *, max_tokens: int, temperature: float, schema: dict | None,
        on_token: TokenCallback | None, timeout: float,
    ) -> Completion:
        raise NotImplementedError

    # A prompt this long or longer measures reading speed; a shorter one is mostly call overhead.
    MIN_PROMPT_TOKENS_TO_MEASURE = 100

    def __init__(self, timeout: float = 300.0) -> None:
        self.timeout = timeout
        # Prompt tokens read per second, measured on this machine from earlier streamed calls
        # (None until one is measured): the chat page's estimate of how long reading takes.
        self.prompt_tokens_per_second: float | None = None
        # Told of every call that completed, whichever agent made it (the benchmarks count and time them).
        self.on_completion: Callable[[Completion], None] | None = None

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

    def judge(self, prompt: str, name: str, choice: dict, *, system: str | None = None, max_tokens: int = 24):
        """One short judgement under a schema of one field, `name`, typed by `choice` (an enum of values, a
        boolean): its value, or None when the call fails or writes no such field. Code asks the model this way
        which value a word means, whether a column holds a measure, what a question asks for."""
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
        schema = {"type": "object", "properties": {name: choice}, "required": [name]}
        try:
            reply, _ = self.complete_json(messages, schema, max_tokens=max_tokens, temperature=0.0)
        except LLMError:
            return None
        return reply.get(name)

    def _timed(self, messages, max_tokens, temperature, schema, on_token) -> Completion:
        started = time.perf_counter()
        first: list[float] = []

        def timed_token(token: str) -> None:
            if not first:
                first.append(time.perf_counter() - started)
            on_token(token)

        completion = self._chat(
            messages, max_tokens=max_tokens, temperature=temperature, schema=schema,
            on_token=timed_token if on_token else None, timeout=self.timeout,
        )
        completion.seconds = round(time.perf_counter() - started, 3)
        if first:
            completion.first_token_seconds = round(first[0], 3)
            self._measure_prompt_speed(completion)
        if self.on_completion is not None:
            self.on_completion(completion)
        return completion

    def _measure_prompt_speed(self, completion: Completion) -> None:
        """Time to first token is the time spent reading the prompt; the latest call counts most,
        as the machine's load changes (an average over calls would lag behind it)."""
        if completion.prompt_tokens < self.MIN_PROMPT_TOKENS_TO_MEASURE or not completion.first_token_seconds:
            return
        speed = completion.prompt_tokens / completion.first_token_seconds
        previous = self.prompt_tokens_per_second
        self.prompt_tokens_per_second = speed if previous is None else 0.5 * previous + 0.5 * speed

    @property
    def loading(self) -> bool:
        """True while the model loads in the background."""
        return False

    def load_in_background(self) -> None:
        """Start loading the model now, so the first question does not wait for it. Providers
        that load nothing (a server, the scripted model) have nothing to do."""

    def health(self) -> tuple[bool, str]:
        """(usable, a sentence for the status page). Must not load a model in the caller's thread."""
        return True, self.name
