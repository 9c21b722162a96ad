"""The command group maps a bug to exit 3 with its traceback, never to the gate-failed code 1."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest

from agent_evals.cli.main import cli, main
from agent_evals.errors import EXIT_INTERNAL


@pytest.fixture
def crashing_command() -> Iterator[str]:
    @click.command("crash-for-test")
    def crash() -> None:
        raise RuntimeError("an unexpected bug")

    cli.add_command(crash)
    try:
        yield "crash-for-test"
    finally:
        cli.commands.pop("crash-for-test")


def test_main__unexpected_exception__exits_3_with_traceback(
    crashing_command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([crashing_command])
    assert exited.value.code == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "RuntimeError: an unexpected bug" in err
    assert "internal error: agent-evals hit a bug" in err
