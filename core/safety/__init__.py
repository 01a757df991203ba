"""Safety checks that need no model: prompt-injection patterns and input validation."""
from core.safety.injection import find_injection, has_injection

__all__ = ["find_injection", "has_injection"]
