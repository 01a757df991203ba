"""The five agents of seed 000 and the pipeline that runs them."""
from core.agents.pipeline import AnswerPipeline
from core.agents.responder import Citation, Response

__all__ = ["AnswerPipeline", "Citation", "Response"]
