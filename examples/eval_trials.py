"""Repeated trials of a nondeterministic agent: pass@k and pass^k appear in the summary."""

import itertools

from agent_evals import EvalContext, eval

_calls = itertools.count()


def flaky_agent(question: str) -> str:
    """Answers correctly two times out of three (deterministically, so the example is stable)."""
    return "Paris" if next(_calls) % 3 != 2 else "Lyon"


@eval(input="What is the capital of France?", reference="Paris", dataset="geography", trials=3)
def test_capital(ctx: EvalContext):
    ctx.output = flaky_agent(ctx.input)
    assert ctx.output == ctx.reference, f"expected {ctx.reference}, got {ctx.output}"
