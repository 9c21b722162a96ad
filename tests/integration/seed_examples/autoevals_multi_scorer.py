import asyncio
import json

from agent_evals import run_eval_async, TaskResult
from agent_evals.core.types import ExampleData, ExpectedResult, Score
from agent_evals.adapters.scorers.autoevals import ValidJSON

# 1. Define your agent
async def calculator_agent(query: str) -> TaskResult:
    """Agent that performs calculations and returns JSON results."""
    calculations = {
        "What is 2 + 2?": '{"result": "4"}',
        "What is 10 * 5?": '{"result": "48"}',  # Wrong answer!
        "What is 100 / 4?": '{"result": "25", invalid json',  # Malformed JSON
    }
    return TaskResult(output=calculations.get(query, '{"error": "unknown"}'))

# 2. Create a custom scorer for business logic validation
async def calculation_correct(result: TaskResult, expected: ExpectedResult | None = None, **context) -> Score:
    """Validates that the calculation result is mathematically correct.

    Note: **context required by Scorer Protocol for forward compatibility.
    """
    try:
        result_json = json.loads(result.output)
        actual = result_json.get("result")
        expected_value = expected.expected if expected else None
        is_correct = actual == expected_value
        return Score(name="calculation_correct", value=1.0 if is_correct else 0.0, passed=is_correct)
    except (json.JSONDecodeError, KeyError, TypeError):
        return Score(name="calculation_correct", value=0.0, passed=False)

# 3. Create test cases
dataset = [
    ExampleData(input="What is 2 + 2?", expected=ExpectedResult(expected="4")),
    ExampleData(input="What is 10 * 5?", expected=ExpectedResult(expected="50")),
    ExampleData(input="What is 100 / 4?", expected=ExpectedResult(expected="25")),
]

# 4. Configure scorers - each evaluates a different layer
scorers = [
    ValidJSON(),                    # Structural: is it valid JSON?
    calculation_correct,            # Business logic: is the math correct?
]

async def main():
    # 5. Run evaluation
    from agent_evals.adapters.platforms.local import LocalConfig
    result = await run_eval_async(
        task=calculator_agent,
        dataset=dataset,
        scorers=scorers,
        platform=LocalConfig(experiment="multi_scorer"),
    )

    # Show results for each scorer
    print("=== Evaluation Results ===\n")
    for scorer_name in ["ValidJSON", "calculation_correct"]:
        print(f"{scorer_name}:")
        print(f"  Pass Rate: {result.pass_rates[scorer_name]:.0%}")
        print(f"  Avg Score: {result.scores[scorer_name]:.2f}\n")

    print("Per-example breakdown:")
    for i, example in enumerate(result.examples, 1):
        print(f"\nExample {i}: {example.output}")
        for scorer_name in ["ValidJSON", "calculation_correct"]:
            score = example.scores[scorer_name]
            status = "✓" if score.passed else "✗"
            print(f"  {scorer_name}: {status} ({score.value:.2f})")


if __name__ == "__main__":
    asyncio.run(main())
