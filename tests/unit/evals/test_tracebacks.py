"""Notes of a bare assert are the whole statement; a syntax error shows its own location, no library frames."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evals.errors import EvalFileError
from agent_evals.evals.discovery import import_eval_file

# Written to a plain file: pytest rewrites the asserts of test modules (adding its own messages).
EVALS = """
from agent_evals import EvalContext, eval


@eval(input="x")
def spanning(ctx: EvalContext):
    x = 1
    assert (x ==
            2)


@eval(input="x")
def sharing_a_line(ctx: EvalContext): ctx.output = "o"; assert ctx.output == "p"
"""


@pytest.mark.parametrize(
    ("name", "notes"),
    [("spanning", "assert (x == 2)"), ("sharing_a_line", 'assert ctx.output == "p"')],
)
def test_bare_assert__notes_are_the_whole_assert_statement(tmp_path: Path, name: str, notes: str) -> None:
    path = tmp_path / "eval_bare.py"
    path.write_text(EVALS, encoding="utf-8")
    result = getattr(import_eval_file(path), name)()
    assert [(s.key, s.passed, s.notes) for s in result.scores] == [("pass", False, notes)]


def test_eval_file_with_syntax_error__error_shows_the_file_line_and_no_library_frames(tmp_path: Path) -> None:
    path = tmp_path / "eval_broken.py"
    path.write_text("def f(:\n", encoding="utf-8")
    with pytest.raises(EvalFileError) as raised:
        import_eval_file(path)
    message = str(raised.value)
    assert f'File "{path}", line 1' in message
    assert "SyntaxError" in message
    assert "importlib" not in message and "<frozen" not in message
