"""Code-first evals of the OpenAI Agents SDK lights assistant: its tool calls scored with no conversion code."""

from lights_openai_agents import run_agent

from agent_evals import EvalContext, eval
from agent_evals.adapters.scorers import ToolCallExactMatch
from agent_evals.core.types import ExpectedResult


@eval(
    dataset="lights",
    cases=[
        {
            "id": "kitchen-on",
            "input": "Turn on the kitchen light",
            "reference": {"room": "kitchen", "state": "on"},
        },
        {
            "id": "hallway-off",
            "input": "Switch the hallway light off",
            "reference": {"room": "hallway", "state": "off"},
        },
    ],
)
async def test_set_light(ctx: EvalContext):
    world = {"lights": {"kitchen": {"state": "off"}, "hallway": {"state": "on"}}}
    run = await run_agent(ctx.input, world)
    ctx.output = run  # its text is the output, its context["usage"] the trial's tokens
    calls = ExpectedResult(
        expected="", context={"reference_outputs": [{"name": "set_light", "args": ctx.reference}]}
    )
    score = ToolCallExactMatch()(run, calls)
    ctx.store(scores={"key": "tool_calls", "passed": score.passed, "notes": score.reasoning})
    assert world["lights"][ctx.reference["room"]]["state"] == ctx.reference["state"], (
        "the light did not change"
    )
