"""The scoring patterns of code-first evals: assertions, explicit scores, and an evaluator."""

import json

from canned_agents import api_agent, similarity, support_agent

from agent_evals import EvalContext, eval


# Assertions: the first failing assert becomes a failing `pass` score with its message as notes.
@eval(input="I want a refund", dataset="support")
async def test_refund(ctx: EvalContext):
    ctx.output = await support_agent(ctx.input)
    assert "refund" in ctx.output.lower(), "Should acknowledge the refund"
    assert len(ctx.output) < 800, "Too long"


# Explicit scores: several named metrics, numeric and pass/fail.
@eval(
    input="Explain quantum computing in one sentence",
    reference="Quantum computers use qubits that can be in superposition.",
    dataset="support",
)
async def test_quantum_explanation(ctx: EvalContext):
    ctx.output = await support_agent(ctx.input)
    ctx.store(
        scores=[
            {"key": "relevance", "passed": "quantum" in ctx.output.lower()},
            {"key": "similarity", "value": similarity(ctx.output, ctx.reference)},
            {"key": "quality", "value": 0.72, "passed": True, "notes": "Judge: clear but long"},
        ]
    )


# An evaluator: the same check, reusable across evals; it runs after the body.
def valid_json(result):
    try:
        json.loads(result.output)
        return {"key": "json", "passed": True}
    except ValueError as e:
        return {"key": "json", "passed": False, "notes": str(e)}


@eval(input="Get user 42", evaluators=[valid_json])
async def test_user_lookup(ctx: EvalContext):
    ctx.output = await api_agent(ctx.input)
