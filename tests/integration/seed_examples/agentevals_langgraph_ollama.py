import asyncio
import json

from agent_evals import run_eval_async, TaskResult
from agent_evals.core.types import ExampleData, ExpectedResult
from agent_evals.adapters.scorers.agentevals import TrajectoryStrictMatch
from langchain.agents import create_agent
from langchain_core.messages.utils import convert_to_openai_messages
from langchain_core.tools import tool
from langchain_ollama import ChatOllama
from langgraph.checkpoint.memory import MemorySaver

# 1. Define tools for your agent
@tool
def lookup_employee_by_id(employee_id: int) -> str:
    """Look up employee name by ID."""
    employees = {1001: "Alice Smith", 1002: "Bob Johnson"}
    return employees.get(employee_id, "Employee not found")

@tool
def get_hr_data(employee_id: int) -> dict:
    """Get HR data for an employee by ID."""
    hr_data = {
        1001: {"salary": 85000, "department": "Engineering", "start_date": "2020-01-15"},
        1002: {"salary": 72000, "department": "Marketing", "start_date": "2021-06-01"},
    }
    return hr_data.get(employee_id, {})

# 2. Create agent wrapper that returns trajectory
def hr_agent_wrapper(query: str) -> TaskResult:
    """Run HR agent and return message trajectory."""
    # Create LangGraph agent
    checkpointer = MemorySaver()
    graph = create_agent(
        model=ChatOllama(model="gpt-oss:20b"),
        tools=[lookup_employee_by_id, get_hr_data],
        checkpointer=checkpointer,
    )

    # Execute agent
    result = graph.invoke(
        {"messages": [{"role": "user", "content": query}]},
        config={"configurable": {"thread_id": "1"}},
    )

    messages = convert_to_openai_messages(result["messages"])
    return TaskResult(output="", context={"outputs": messages})

# 3. Define expected trajectory
dataset = [
    ExampleData(
        input="Lookup the employee name and HR data for employee ID 1001",
        expected=ExpectedResult(
            expected="",
            context={
                "reference_outputs": [
                    {"role": "user", "content": "Lookup the employee name and HR data for employee ID 1001"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [{"function": {"name": "lookup_employee_by_id", "arguments": json.dumps({"employee_id": 1001})}}],
                    },
                    {"role": "tool", "content": "Alice Smith"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [{"function": {"name": "get_hr_data", "arguments": json.dumps({"employee_id": 1001})}}],
                    },
                    {"role": "tool", "content": str({"salary": 85000, "department": "Engineering", "start_date": "2020-01-15"})},
                    {"role": "assistant", "content": "Alice Smith works in Engineering"},
                ]
            },
        ),
    )
]

async def main():
    # 4. Run evaluation
    result = await run_eval_async(
        task=hr_agent_wrapper,
        dataset=dataset,
        scorers=[TrajectoryStrictMatch()],
    )

    score = result.examples[0].scores["TrajectoryStrictMatch"]
    print(f"Result: {'✓ PASSED' if score.passed else '✗ FAILED'}")
    print(f"Score: {score.value}")


if __name__ == "__main__":
    asyncio.run(main())
