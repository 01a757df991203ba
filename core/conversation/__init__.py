"""Conversation state: the rolling summary that lets a small model follow a dialogue, and follow-ups
made standalone questions."""
from core.conversation.follow_up import Resolution, resolve_follow_up
from core.conversation.summary import Conversation, ResultSetCommand, is_new_topic, result_set_command, update_summary

__all__ = ["Conversation", "Resolution", "ResultSetCommand", "is_new_topic", "resolve_follow_up", "result_set_command",
           "update_summary"]
