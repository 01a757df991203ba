"""Typed trace events: one trace per turn, shown live and persisted as the audit log."""
from core.trace.events import Trace, TraceEvent, TraceRecorder

__all__ = ["Trace", "TraceEvent", "TraceRecorder"]
