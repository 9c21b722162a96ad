import asyncio

from agent_evals import run_eval_async, TaskResult
from agent_evals.adapters.scorers import StateMatch
from agent_evals.core.types import ExampleData, ExpectedResult


def light_agent(input_):
    prompt = input_["prompt"] if isinstance(input_, dict) else input_
    state = {"lights": {}}
    if "kitchen" in prompt.lower() and "on" in prompt.lower():
        state["lights"]["kitchen"] = {"state": "on"}
    return TaskResult(output="", context={"final_state": state})


dataset = [
    ExampleData(
        input="Turn on the kitchen light",
        expected=ExpectedResult(
            expected="",
            context={"expected_state": {"lights.kitchen.state": "on"}},
        ),
    ),
]


async def main():
    result = await run_eval_async(
        task=light_agent,
        dataset=dataset,
        scorers=[StateMatch()],  # no factory default — each test supplies its own
    )
    print(result.pass_rates)  # {"StateMatch": 1.0}


if __name__ == "__main__":
    asyncio.run(main())
