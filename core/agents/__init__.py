"""The five agents (Planner, Retriever, Reasoner, Validator, Responder), the pipeline that runs
them, and agent mode."""
from core.agents.pipeline import AnswerPipeline
from core.agents.responder import Citation, Response

__all__ = ["AnswerPipeline", "Citation", "Response"]
