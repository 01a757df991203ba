"""A deterministic stand-in for a model: for agent tests, page tests and demos without a model.

Give it a list of replies (or a function of the messages) and it plays them in order. With no
script it answers extractively: the first sentence of source 1, cited, which keeps the whole
pipeline honest (grounded, cited) while costing no model time. A plain scripted reply to the
Reasoner's quote form is delivered as that form's JSON: the reply, quoting the source it cites.
"""
from __future__ import annotations

import json
import re
import time
from typing import Callable

from core.llm.base import ChatLLM, Completion, LLMError, Messages

Script = list[str] | Callable[[Messages], str]
NO_INFORMATION = "The provided documents do not contain information about this."


class ScriptedLLM(ChatLLM):
    name = "scripted"
    model = "scripted"

    def __init__(self, script: Script | None = None, *, fail_with: Exception | None = None,
                 words_per_second: float = 0.0) -> None:
        super().__init__(timeout=5)
        self.script = script
        self.fail_with = fail_with
        self.words_per_second = words_per_second  # 0: every word at once
        self.calls: list[Messages] = []

    def _chat(self, messages: Messages, *, max_tokens, temperature, schema, on_token, timeout) -> Completion:
        self.calls.append(messages)
        if self.fail_with is not None:
            raise self.fail_with
        if callable(self.script):
            text = self.script(messages)
        elif self.script is not None:  # a list, even empty: every call must be scripted
            if len(self.calls) > len(self.script):
                raise LLMError("The scripted model ran out of replies.")
            text = self.script[len(self.calls) - 1]
        else:
            text = extractive_answer(messages, schema)
        if _asks_for_quote(schema) and not text.lstrip().startswith("{"):
            text = as_quoted(text, messages)
        words = text.split(" ")
        for i, word in enumerate(words):
            if on_token:
                if self.words_per_second:
                    time.sleep(1 / self.words_per_second)
                on_token(word if i == 0 else " " + word)
        finish = "length" if len(words) > max_tokens else "stop"
        prompt = sum(len(m["content"].split()) for m in messages)
        return Completion(text=" ".join(words[:max_tokens]), finish_reason=finish,
                          prompt_tokens=prompt, completion_tokens=min(len(words), max_tokens))


# The pipeline labels sources "[Source 1] (file)", agent mode's synthesis "[1] file:".
_SOURCE = re.compile(r"^\[(?:Source )?1\][^\n]*\n(.+?)(?:\n\[(?:Source )?2\]|\n\nInstructions:|\n\nQuestion:|\n\nAnswer|\Z)",
                     re.S | re.M)


def _asks_for_quote(schema: dict | None) -> bool:
    return schema is not None and "quote" in schema.get("properties", {})


_CITATION = re.compile(r"\s*\[(?:Source )?(\d+)\]")


def as_quoted(text: str, messages: Messages) -> str:
    """A scripted plain answer, asked for in the Reasoner's quote form: that answer, quoting the
    line of the source it cites that shares the most words with it, as a model quotes the line that
    states its answer (so a test script reads as the answer the user sees)."""
    cited = _CITATION.search(text)
    number = int(cited.group(1)) if cited else 1
    match = re.search(rf"^\[Source {number}\][^\n]*\n(.+?)(?:\n\[Source \d+\]|\n\nInstructions:|\n\nQuestion:|\Z)",
                      messages[-1]["content"], re.S | re.M)
    lines = [line.strip() for line in match.group(1).strip().split("\n")] if match else [""]
    words = set(re.findall(r"\w+", text.lower()))
    best = max(lines, key=lambda line: len(words & set(re.findall(r"\w+", line.lower()))))
    return json.dumps({"quote": best[:300], "source": number, "answer": text})


def extractive_answer(messages: Messages, schema: dict | None = None) -> str:
    """The first sentence of source 1, cited; as {quote, source, answer} when the Reasoner asks
    for its quote form (a schema with a "quote" field)."""
    prompt = messages[-1]["content"]
    match = _SOURCE.search(prompt)
    quoted = _asks_for_quote(schema)
    if not match:
        return json.dumps({"quote": "", "source": 0, "answer": NO_INFORMATION}) if quoted else NO_INFORMATION
    text = " ".join(match.group(1).split())
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0][:400]
    return json.dumps({"quote": sentence, "source": 1, "answer": sentence}) if quoted else f"{sentence} [Source 1]"


def scripted_json(value: dict) -> str:
    return json.dumps(value)
