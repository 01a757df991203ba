"""Safety checks that need no model: prompt-injection patterns, input validation, PII redaction."""
from core.safety.injection import find_injection, has_injection
from core.safety.pii import Redaction, StreamRedactor, redact_pii

__all__ = ["find_injection", "has_injection", "Redaction", "StreamRedactor", "redact_pii"]
