"""PII redaction: the question before it is logged or sent to the model, the answer
before it is shown.

Redacted: e-mail addresses, phone numbers, payment card numbers (Luhn-checked), IBANs (mod-97
checked) and account numbers named as such, US social security numbers and UK national insurance
numbers. Each becomes a placeholder a person can read, such as "[e-mail address hidden]"; the kinds
found become safety flags ("pii_redacted:email"), which the app shows as "e-mail address hidden".

The question is always redacted before it is logged or reaches the model. The answer is redacted only
when the user asks for it (Settings.redact_answers, the Chat page's "Hide personal data in answers"):
the documents are the user's own, read on their own machine, and a support number the handbook prints
is the answer, not a leak.

The documents are financial filings, invoices and receipts, so the patterns are written to leave
their ordinary figures alone: amounts ("$1,234.56", "82,959"), years and quarters, page numbers,
invoice and file numbers ("INV-2023-0042", "001-37580"), employer identification numbers
("41-0417775") and ISINs. Bare digit runs are only redacted where a checksum (cards, IBANs) or a
label ("account no.", "tel:", "SSN") says what they are.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

# What each kind is called where a value of it was hidden.
KIND_NAMES = {
    "email": "e-mail address",
    "phone": "phone number",
    "card_number": "card number",
    "iban": "IBAN",
    "account_number": "account number",
    "ssn": "social security number",
    "national_insurance_number": "national insurance number",
}
PLACEHOLDERS = {kind: f"[{name} hidden]" for kind, name in KIND_NAMES.items()}
PLACEHOLDER = re.compile(r"\[(?:" + "|".join(re.escape(n) for n in KIND_NAMES.values()) + r") hidden\]")
FLAG_PREFIX = "pii_redacted:"


def hidden_label(flag: str) -> str | None:
    """"pii_redacted:phone" -> "phone number hidden"; None for any other flag."""
    if not flag.startswith(FLAG_PREFIX):
        return None
    kind = flag[len(FLAG_PREFIX):]
    return f"{KIND_NAMES.get(kind, kind.replace('_', ' '))} hidden"

# A digit sequence must not be a piece of a longer figure: no digit, decimal point, thousands
# comma or dash right before or after it ("1,234,567", "2019-2020-2021" stay whole and untouched).
_NOT_AFTER_FIGURE = r"(?<![\w.,/-])"
_NOT_BEFORE_FIGURE = r"(?![\w/-]|[.,]\d)"

_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")

# Cards: 13-19 digits, contiguous or in groups separated by one consistent space or dash, with a
# known issuer prefix and a valid Luhn check digit.
_CARD = re.compile(
    _NOT_AFTER_FIGURE
    + r"(?:\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}|\d{4}([ -])\d{6}\2\d{5}|\d{13,19})"
    + _NOT_BEFORE_FIGURE
)
_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[068]|6(?:011|5|4[4-9]|22)|35)")

# IBAN: country, check digits, 11-30 more letters/digits, optionally in groups of four; mod-97.
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
_IBAN_MIN, _IBAN_MAX = 15, 34  # shortest (Norway) and longest national formats

# Labelled numbers: the label stays, the number goes.
_ACCOUNT = re.compile(
    r"(?P<label>\b(?:(?:bank\s+|checking\s+|savings\s+|customer\s+)?account"
    r"(?:\s+(?:number|no\.?|num\.?|#)\s*[:#]?|\s*[:#])|(?:acct\.?|a/c)(?:\s+(?:number|no\.?|#))?\s*[:#]?)\s*)"
    r"(?P<value>\d(?:[ -]?\d){5,19})" + _NOT_BEFORE_FIGURE,
    re.I,
)
_SORT_CODE = re.compile(r"(?P<label>\bsort\s+code\s*:?\s*)(?P<value>\d{2}-\d{2}-\d{2})\b", re.I)
_ROUTING = re.compile(r"(?P<label>\b(?:routing|ABA)\s+(?:number|no\.?|#)?\s*:?\s*)(?P<value>\d{9})\b", re.I)
_LABELLED_SSN = re.compile(
    r"(?P<label>\b(?:SSN|social\s+security\s+(?:number|no\.?))\s*[:#]?\s*)(?P<value>\d{3}[- ]?\d{2}[- ]?\d{4})\b", re.I
)
_LABELLED_PHONE = re.compile(
    r"(?P<label>\b(?:(?:phone|tel|telephone|fax)\.?(?:\s+(?:number|no\.?))?\s*[:#]?"
    r"|(?:mobile|cell)(?:\s+(?:phone|number|no\.?))?\s*[:#])\s*)"
    r"(?P<value>\+?\(?\d[\d ().-]{5,18}\d)" + _NOT_BEFORE_FIGURE,
    re.I,
)

# SSN: 3-2-4 with dashes; the area, group and serial ranges never issued are left alone.
_SSN = re.compile(_NOT_AFTER_FIGURE + r"(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}" + _NOT_BEFORE_FIGURE)

# UK national insurance number: two prefix letters (not D, F, I, Q, U, V; second not O; never
# BG, GB, KN, NK, NT, TN, ZZ), six digits, suffix A-D. Upper case only, as printed.
_NI = re.compile(
    r"\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)

# Phones without a label: international (+CC ...), North American as (415) 555-0132 or with one
# consistent dash or dot (never bare spaces: "300 450 1200" is a row of figures), and national
# trunk-prefix numbers (020 7946 0958).
_PHONE = re.compile(
    r"(?:(?<![\w+])\+\d{1,3}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]?\d{1,4}){2,5}"
    + r"|" + _NOT_AFTER_FIGURE + r"(?:\(\s?[2-9]\d{2}\s?\)\s?\d{3}[ .-]\d{4}|[2-9]\d{2}([.-])\d{3}\1\d{4})"
    + r"|" + _NOT_AFTER_FIGURE + r"0\d{2,4}[ -]\d{3,4}[ -]?\d{3,4})"
    + _NOT_BEFORE_FIGURE
)


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    if not _IBAN_MIN <= len(compact) <= _IBAN_MAX:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def _is_card(match: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    return 13 <= len(digits) <= 19 and bool(_CARD_PREFIX.match(digits)) and luhn_valid(digits)


def _is_phone(match: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    return 7 <= len(digits) <= 15


# Order matters: checksummed and labelled kinds first, so a card number is not half-eaten as a
# phone number, and the generic phone pattern runs last over what is left.
_RULES: list[tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool] | None]] = [
    ("email", _EMAIL, None),
    ("iban", _IBAN, lambda m: iban_valid(m.group(0))),
    ("card_number", _CARD, _is_card),
    ("ssn", _LABELLED_SSN, None),
    ("account_number", _ACCOUNT, None),
    ("account_number", _SORT_CODE, None),
    ("account_number", _ROUTING, None),
    ("phone", _LABELLED_PHONE, None),
    ("ssn", _SSN, None),
    ("national_insurance_number", _NI, None),
    ("phone", _PHONE, _is_phone),
]


@dataclass
class Redaction:
    text: str
    kinds: list[str] = field(default_factory=list)  # what was redacted, each once, in the order checked

    @property
    def flags(self) -> list[str]:
        return [FLAG_PREFIX + kind for kind in self.kinds]


def redact_pii(text: str) -> Redaction:
    """`text` with every piece of personal data replaced by its placeholder."""
    kinds: list[str] = []
    for kind, pattern, accept in _RULES:
        def replace(match: re.Match[str], kind=kind, accept=accept) -> str:
            if accept is not None and not accept(match):
                return match.group(0)
            if kind not in kinds:
                kinds.append(kind)
            label = match.groupdict().get("label")
            return (label or "") + PLACEHOLDERS[kind]

        text = pattern.sub(replace, text or "")
    return Redaction(text, kinds)


def personal_data_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` holds personal data, as (start, end) character spans (a label such as "Tel:" is not part of
    it): what the evidence view covers on a page drawn as an image, which no placeholder can replace."""
    spans: list[tuple[int, int]] = []
    for _, pattern, accept in _RULES:
        for match in pattern.finditer(text or ""):
            if accept is not None and not accept(match):
                continue
            value = "value" if "value" in match.groupdict() else 0
            start, end = match.span(value)
            if not any(a < end and start < b for a, b in spans):
                spans.append((start, end))
    return sorted(spans)


def merge_flags(flags: list[str], more: list[str]) -> list[str]:
    return list(dict.fromkeys(flags + more))


class StreamRedactor:
    """Redacts a token stream before it reaches the screen.

    Text is held back until it cannot be part of a match any more: everything but the last
    `holdback` characters is released at a space that no match straddles. Personal data is
    short (the longest, an IBAN with spaces, is 42 characters), so once the stream has moved
    on further than that, what lies before can be redacted for good. The released pieces
    join to exactly `redact_pii(whole text).text`.
    """

    holdback = 64

    def __init__(self, emit: Callable[[str], None], enabled: bool = True) -> None:
        self.emit = emit
        self.enabled = enabled  # off: the words pass as they come (the answer is not redacted)
        self.pending = ""
        self.kinds: list[str] = []

    def __call__(self, token: str) -> None:
        if not self.enabled:
            self.emit(token)
            return
        self.pending += token
        # Release as soon as anything lies `holdback` characters back: the first words reach the
        # screen about 15 tokens (1 s here) after the model starts writing, not at twice that.
        if len(self.pending) <= self.holdback:
            return
        cut = self._safe_cut(len(self.pending) - self.holdback)
        if cut > 0:
            self._release(self.pending[:cut])
            self.pending = self.pending[cut:]

    def flush(self) -> None:
        if self.pending:
            self._release(self.pending)
            self.pending = ""

    def _safe_cut(self, limit: int) -> int:
        """The last whitespace position before `limit` that no match covers (0: none)."""
        covered = [(m.start(), m.end()) for _, pattern, _ in _RULES for m in pattern.finditer(self.pending)]
        for cut in range(limit, 0, -1):
            if self.pending[cut - 1].isspace() and not any(start < cut < end for start, end in covered):
                return cut
        return 0

    def _release(self, text: str) -> None:
        result = redact_pii(text)
        for kind in result.kinds:
            if kind not in self.kinds:
                self.kinds.append(kind)
        self.emit(result.text)
