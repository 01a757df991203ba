"""Domain profiles: rules that hold for one kind of document and for no other (issue 26, item 3).

The core reads any document the same way. What only one kind of document says, such as a US public
company's filing stating its form ("FORM 10-Q") and registrant on its cover, lives in a profile for
that kind. A profile's rules act only on the documents they recognise (a cover that states a form),
so a user's own report, minutes or invoices never meet them. The profiles switched on are a
setting (`document_profiles`, default `sec_filing`); every benchmark figure can be measured with
and without them (docs/architecture.md, "Domain profiles").

Each profile answers the same few questions, and the core asks every switched-on profile:
- at ingest, what its cover says: the document's form, its owner and its period (the identity line
  that starts every chunk's indexed text), and its kind for the document summary;
- when a question comes, which form it names ("the latest 10-Q") and how it names such documents in
  the plural ("these 10-Qs"), so the router keeps those documents only;
- which of such a document's sections the question needs, by their name or by a line only they hold
  ("capital expenditure": the cash flow statement), so the search reads from them too.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Protocol

from core.config import PROFILE_NAMES, Settings


@dataclass(frozen=True)
class DocumentType:
    """A kind of document the summary names, found by a pattern over the file name and first page."""
    pattern: str
    name: str  # "Invoice", "Quarterly report (10-Q)"
    use_for: str  # what questions it answers, embedded for routing
    may_hold_records: bool = True  # False: it prints totals and dates but bills nothing (a filing, a datasheet)


class DocumentProfile(Protocol):
    name: str
    document_types: tuple[DocumentType, ...]  # tried before the general ones
    form_words: str  # a regex alternation: how a question names the forms ("10-?[qk]s?")
    plural_forms: str  # ... in the plural only ("10-?qs|10-?ks"): "these 10-Qs" asks about earlier ones too

    def cover_form(self, cover: str) -> str:
        """The form the cover states ("Form 10-Q", "earnings release"); "" when it is not this kind."""

    def cover_owner(self, lines: list[str]) -> str:
        """The owner as this kind states it on its cover (a registrant); "" if none."""

    def cover_period(self, cover: str) -> str:
        """The period as this kind states it ("report dated May 2, 2023", "second quarter 2023"); "" if none."""

    def identity_form(self, identity: str) -> str:
        """The form read back from an identity line this profile wrote ("10-Q"); "" if none."""

    def identity_period(self, identity: str) -> tuple[str, date | None]:
        """The kind of period and its last day read back from an identity line ("report dated", ...)."""

    def form_asked(self, question: str) -> str:
        """The form a question names ("10-Q" for "the latest 10-Q"); "" if none."""

    def sections_asked(self, question: str) -> tuple[str, ...]:
        """The sections of this kind of document the question needs, most needed first ("cash flows")."""

    def section_titled(self, heading: str) -> str:
        """The section a heading of this kind of document titles, as `sections_asked` names it; "" if none."""


def _registry() -> dict[str, DocumentProfile]:
    from core.profiles.sec_filing import SEC_FILING

    return {SEC_FILING.name: SEC_FILING}


def active_profiles(settings: Settings) -> tuple[DocumentProfile, ...]:
    """The profiles the settings switch on, in their order (names were checked when the settings were made)."""
    registry = _registry()
    return tuple(registry[name] for name in settings.document_profiles)


def known_names() -> tuple[str, ...]:
    return tuple(_registry())


__all__ = ["DocumentProfile", "DocumentType", "PROFILE_NAMES", "active_profiles", "known_names"]
