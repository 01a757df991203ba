"""Conversation state: the rolling summary that lets a small model follow a dialogue."""
from core.conversation.summary import (
    Conversation, Resolution, is_new_topic, resolve_follow_up, result_set_command, update_summary,
)

__all__ = ["Conversation", "Resolution", "is_new_topic", "resolve_follow_up", "result_set_command", "update_summary"]
