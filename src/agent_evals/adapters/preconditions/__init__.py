"""Precondition appliers handed to seed-style agents as ``run_case(prompt, preconditions=[...])``."""

from agent_evals.adapters.preconditions.state import StatePreconditionApplier

__all__ = ["StatePreconditionApplier"]
