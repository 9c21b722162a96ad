"""One eval function expanded into several cases with `cases=`, and a `target=` holding the agent call."""

from canned_agents import api_agent

from agent_evals import EvalContext, eval

# File-wide defaults: every eval in this file gets this dataset unless it sets its own.
EVAL_DEFAULTS = {"dataset": "lookups"}


async def lookup(ctx: EvalContext) -> str:
    """The target: calls the agent; its return value becomes ctx.output (and is what `regrade` reuses)."""
    return await api_agent(ctx.input)


@eval(
    target=lookup,
    cases=[
        {"id": "user-1", "input": "Get user 1", "reference": 1},
        {"id": "user-42", "input": "Get user 42", "reference": 42},
        {"id": "user-7", "input": "Get user 7", "reference": 7, "labels": ["smoke"]},
    ],
)
def test_lookup_returns_requested_user(ctx: EvalContext):
    assert '"id": ' + str(ctx.reference) in ctx.output, "wrong user in the answer"
