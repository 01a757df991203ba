"""The sections a question needs, found by their titles in the documents it was routed to.

A figure of a statement ("capital expenditure", "the quick ratio") is discussed in prose on many pages
of a long report, and hybrid search ranks those pages above the statement's own rows, which share
none of the question's words ("Purchases of property, plant and equipment"). A domain profile says
which sections a question needs and how that kind of document titles them (core/profiles); every
chunk carries the heading in force at its first line (core/ingest/context.py), so the chunks under
such a title are that section. (Also taking a title among a chunk's first lines, or every chunk of a
title's page, measured worse on the dev parts: docs/retrieval.md, section 13.)
"""
from __future__ import annotations

from collections.abc import Sequence

from core.ingest.context import context_of, identity_and_heading
from core.profiles import DocumentProfile
from core.store.knowledge_base import KnowledgeBase


def named_sections(question: str, doc_ids: Sequence[str], kb: KnowledgeBase,
                   profiles: Sequence[DocumentProfile]) -> list[tuple[str, set[str]]]:
    """For each section the profiles say the question needs (most needed first), its name and the ids of its
    chunks in `doc_ids`, read only from documents the profile recognises (their identity states its form)."""
    wanted = [(profile, name) for profile in profiles for name in profile.sections_asked(question)]
    if not wanted or not doc_ids:
        return []
    asking = list(dict.fromkeys(profile for profile, _ in wanted))
    found: dict[tuple[str, str], set[str]] = {}
    for doc_id in doc_ids:
        for chunk in kb.catalog.document_chunks(doc_id):
            identity, heading = identity_and_heading(context_of(chunk.index_text, chunk.text))
            if not heading:
                continue
            for profile in asking:
                titled = profile.section_titled(heading) if profile.identity_form(identity) else ""
                if titled:
                    found.setdefault((profile.name, titled), set()).add(chunk.chunk_id)
    return [(name, found[(profile.name, name)]) for profile, name in wanted if (profile.name, name) in found]
