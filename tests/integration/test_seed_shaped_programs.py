"""Programs written against the seed's API run here as plain scripts and print the figures the seed does.

Each program is our own: it uses the seed's import paths and call shapes (keyword arguments,
no platform, ``LocalConfig(experiment=...)``, ``asyncio.run(main())``) and prints the same
pass rates, averages and per-example marks the seed's examples print.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers.ollama_server import OLLAMA_PORT, OllamaAnswer, OllamaServer, by_turn


def run_program(source: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``source`` as a script in ``cwd`` with no proxy, model host, key or tracing settings."""
    script = cwd / "program.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OLLAMA", "OPENAI", "LANGSMITH", "LANGCHAIN"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")
    }
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


LAMP_PROGRAM = """
    import asyncio

    from agent_evals import TaskResult, run_eval_async
    from agent_evals.adapters.scorers import StateMatch
    from agent_evals.core.types import ExampleData, ExpectedResult


    def lamp_agent(request):
        text = request["prompt"] if isinstance(request, dict) else request
        lights = {}
        if "on" in text.lower().split() and "porch" in text.lower():
            lights["porch"] = {"state": "on"}
        return TaskResult(output="", context={"final_state": {"lights": lights}})


    cases = [
        ExampleData(
            input="Switch on the porch light",
            expected=ExpectedResult(expected="", context={"expected_state": {"lights.porch.state": "on"}}),
        )
    ]


    async def main():
        result = await run_eval_async(task=lamp_agent, dataset=cases, scorers=[StateMatch()])
        print(result.pass_rates)
        print(result.platform, result.summary["successful_examples"], result.summary["failed_examples"])


    if __name__ == "__main__":
        asyncio.run(main())
"""


def test_state_program__no_platform__prints_pass_rate_and_records_locally(tmp_path: Path) -> None:
    done = run_program(LAMP_PROGRAM, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "{'StateMatch': 1.0}\nlocal 1 0\n"
    runs = list((tmp_path / "local_eval_results" / "experiments").iterdir())
    assert len(runs) == 1 and runs[0].name.startswith("eval-")


JSON_PROGRAM = """
    import asyncio
    import json

    from agent_evals import TaskResult, run_eval_async
    from agent_evals.adapters.platforms.local import LocalConfig
    from agent_evals.adapters.scorers.autoevals import ValidJSON
    from agent_evals.core.types import ExampleData, ExpectedResult, Score

    ANSWERS = {
        "3 + 4": '{"result": "7"}',
        "6 * 7": '{"result": "41"}',
        "9 - 1": '{"result": "8", oops',
    }


    async def arithmetic_agent(question):
        return TaskResult(output=ANSWERS[question])


    async def right_number(result, expected=None, **context):
        try:
            answer = json.loads(result.output).get("result")
        except (ValueError, AttributeError):
            return Score(name="right_number", value=0.0, passed=False)
        ok = expected is not None and answer == expected.expected
        return Score(name="right_number", value=1.0 if ok else 0.0, passed=ok)


    cases = [
        ExampleData(input="3 + 4", expected=ExpectedResult(expected="7")),
        ExampleData(input="6 * 7", expected=ExpectedResult(expected="42")),
        ExampleData(input="9 - 1", expected=ExpectedResult(expected="8")),
    ]
    NAMES = ["ValidJSON", "right_number"]


    async def main():
        result = await run_eval_async(
            task=arithmetic_agent,
            dataset=cases,
            scorers=[ValidJSON(), right_number],
            platform=LocalConfig(experiment="arith"),
        )
        for name in NAMES:
            print(f"{name}: pass rate {result.pass_rates[name]:.0%}, mean {result.scores[name]:.2f}")
        for number, example in enumerate(result.examples, 1):
            marks = " ".join(
                f"{name}={'✓' if example.scores[name].passed else '✗'}({example.scores[name].value:.2f})"
                for name in NAMES
            )
            print(f"{number}: {example.output} | {marks}")


    if __name__ == "__main__":
        asyncio.run(main())
"""

JSON_FIGURES = """\
ValidJSON: pass rate 67%, mean 0.67
right_number: pass rate 33%, mean 0.33
1: {"result": "7"} | ValidJSON=✓(1.00) right_number=✓(1.00)
2: {"result": "41"} | ValidJSON=✓(1.00) right_number=✗(0.00)
3: {"result": "8", oops | ValidJSON=✗(0.00) right_number=✗(0.00)
"""


def test_validjson_and_custom_async_scorer_program__prints_the_seed_figures(tmp_path: Path) -> None:
    pytest.importorskip("autoevals")
    done = run_program(JSON_PROGRAM, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == JSON_FIGURES
    runs = list((tmp_path / "local_eval_results" / "experiments").iterdir())
    assert len(runs) == 1 and runs[0].name.startswith("arith-")


TRAJECTORY_PROGRAM = """
    import asyncio
    import json

    from agent_evals import TaskResult, run_eval_async
    from agent_evals.adapters.scorers.agentevals import TrajectoryStrictMatch
    from agent_evals.core.types import ExampleData, ExpectedResult
    from langchain.agents import create_agent
    from langchain_core.messages.utils import convert_to_openai_messages
    from langchain_core.tools import tool
    from langchain_ollama import ChatOllama


    @tool
    def find_book(isbn: str) -> str:
        \"\"\"Title of the book with this ISBN.\"\"\"
        return {"978-0": "Dune"}.get(isbn, "unknown")


    @tool
    def shelf_of(isbn: str) -> dict:
        \"\"\"Where the book with this ISBN is shelved.\"\"\"
        return {"978-0": {"floor": 2, "shelf": "SF-12"}}.get(isbn, {})


    def library_agent(question):
        graph = create_agent(model=ChatOllama(model="gpt-oss:20b"), tools=[find_book, shelf_of])
        state = graph.invoke({"messages": [{"role": "user", "content": question}]})
        return TaskResult(output="", context={"outputs": convert_to_openai_messages(state["messages"])})


    def call(name, **args):
        return {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": name, "arguments": json.dumps(args)}}
        ]}


    QUESTION = "Which book is ISBN 978-0 and where is it?"
    cases = [
        ExampleData(
            input=QUESTION,
            expected=ExpectedResult(
                expected="",
                context={
                    "reference_outputs": [
                        {"role": "user", "content": QUESTION},
                        call("find_book", isbn="978-0"),
                        {"role": "tool", "content": "Dune"},
                        call("shelf_of", isbn="978-0"),
                        {"role": "tool", "content": str({"floor": 2, "shelf": "SF-12"})},
                        {"role": "assistant", "content": "Dune is on floor 2, shelf SF-12"},
                    ]
                },
            ),
        )
    ]


    async def main():
        result = await run_eval_async(task=library_agent, dataset=cases, scorers=[TrajectoryStrictMatch()])
        score = result.examples[0].scores["TrajectoryStrictMatch"]
        print(f"Result: {'✓ PASSED' if score.passed else '✗ FAILED'}")
        print(f"Score: {score.value}")


    if __name__ == "__main__":
        asyncio.run(main())
"""


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture
def ollama_on_default_port() -> Iterator[OllamaServer]:
    """The Ollama-protocol server on localhost:11434, where ChatOllama looks when given no host."""
    pytest.importorskip("langchain_ollama")
    if not _port_is_free(OLLAMA_PORT):
        pytest.skip(f"port {OLLAMA_PORT} is taken (a real Ollama may be running); the program needs it")
    with OllamaServer(port=OLLAMA_PORT) as server:
        yield server


@pytest.mark.parametrize(
    ("order", "printed"),
    [
        (["find_book", "shelf_of"], "Result: ✓ PASSED\nScore: 1.0\n"),
        (["shelf_of", "find_book"], "Result: ✗ FAILED\nScore: 0.0\n"),
    ],
    ids=["reference-order", "swapped-order"],
)
def test_langgraph_chatollama_program__strict_trajectory_match(
    ollama_on_default_port: OllamaServer, tmp_path: Path, order: list[str], printed: str
) -> None:
    ollama_on_default_port.responder = by_turn(
        *(OllamaAnswer(tool_calls=[(name, {"isbn": "978-0"})]) for name in order),
        OllamaAnswer(content="Dune is on floor 2, shelf SF-12"),
    )
    done = run_program(TRAJECTORY_PROGRAM, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
    requests = ollama_on_default_port.chat_requests
    assert [r["model"] for r in requests] == ["gpt-oss:20b"] * 3
    assert {t["function"]["name"] for t in requests[0]["tools"]} == {"find_book", "shelf_of"}
    tool_results = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    assert ("Dune" in tool_results) and any("SF-12" in r for r in tool_results)  # the real tools ran
