"""run_sync: asyncio.run's value, never written as text on the way out."""

from __future__ import annotations

import pytest

from agent_evals.core.run_sync import run_sync


class _Loud:
    """A value whose text is counted (a large result's repr is what asyncio.run would pay for)."""

    shown = 0

    def __repr__(self) -> str:
        type(self).shown += 1
        return "<loud>"


async def _give(value: object) -> object:
    return value


async def _fail() -> None:
    raise LookupError("nothing here")


def test_run_sync__a_value__handed_back_and_never_turned_into_text() -> None:
    value = _Loud()
    assert run_sync(_give(value)) is value
    assert _Loud.shown == 0


@pytest.mark.parametrize(
    "value", [None, 0, "", [1, 2], {"a": 1}], ids=["none", "zero", "empty", "list", "dict"]
)
def test_run_sync__any_value__as_asyncio_run_gives_it(value: object) -> None:
    assert run_sync(_give(value)) == value


def test_run_sync__the_coroutine_raises__the_same_exception() -> None:
    with pytest.raises(LookupError, match="nothing here"):
        run_sync(_fail())
