"""Code-first evals with trace="otel": the trials' usage and models come from their spans."""

from lights_traced import local_text, text_only

from agent_evals import EvalContext, eval

CASES = [
    {"id": "kitchen", "input": "Turn on the kitchen light"},
    {"id": "hallway", "input": "Switch the hallway light off"},
]


@eval(trace="otel", trials=2, cases=CASES)
async def lights(ctx: EvalContext):
    ctx.output = await text_only(ctx.input)
    assert "light" in ctx.output


@eval(trace="otel", trials=2, input="How are the lights?")
async def local(ctx: EvalContext):
    ctx.output = await local_text(ctx.input)
