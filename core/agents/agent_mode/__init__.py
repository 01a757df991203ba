"""Agent mode: a bounded, tool-using loop for questions that state constraints.

constraints -> plan -> strict JSON actions over search_docs / open_citation (and the fact
tools) -> validation gate with reprompts -> citation grounding -> a Response with
insufficiencies, persisted with its trace like the pipeline's.
"""
from core.agents.agent_mode.agent import AGENT, AUTO, MODES, PIPELINE, AgentMode, choose_mode
from core.agents.agent_mode.constraints import ConstraintAnalysis, analyze_constraints

__all__ = ["AGENT", "AUTO", "MODES", "PIPELINE", "AgentMode", "ConstraintAnalysis", "analyze_constraints",
           "choose_mode"]
