"""The default record file of `agent-evals run` without -o: one new file per run, the newest kept."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from agent_evals.run.default_record import KEEP, RUNS_DIR, default_output, reserve_default_record

NOON = datetime(2026, 12, 6, 12, 0, 0, tzinfo=timezone.utc)


def test_reserve_default_record__same_second__new_names_in_order(tmp_path: Path) -> None:
    names = [reserve_default_record(tmp_path, NOON).name for _ in range(3)]
    assert names == ["run-20261206-120000.json", "run-20261206-120000-2.json", "run-20261206-120000-3.json"]
    assert all((tmp_path / RUNS_DIR / name).exists() for name in names)


def test_reserve_default_record__a_run_of_that_name_still_writing__skips_the_name(tmp_path: Path) -> None:
    (tmp_path / RUNS_DIR).mkdir(parents=True)
    (tmp_path / RUNS_DIR / "run-20261206-120000.json.partial").write_text("{", encoding="utf-8")
    assert reserve_default_record(tmp_path, NOON).name == "run-20261206-120000-2.json"


def test_reserve_default_record__more_than_keep__only_the_newest_stay(tmp_path: Path) -> None:
    made = [reserve_default_record(tmp_path, NOON.replace(minute=m // 2)).name for m in range(KEEP + 5)]
    left = sorted(p.name for p in (tmp_path / RUNS_DIR).glob("run-*.json"))
    assert len(left) == KEEP and set(left) == set(made[-KEEP:])
    assert (tmp_path / RUNS_DIR / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"


def test_default_output__folder_cannot_be_made__none_and_says_to_pass_o(tmp_path: Path) -> None:
    (tmp_path / ".agent-evals").write_text("a file\n", encoding="utf-8")
    said: list[str] = []
    assert default_output(tmp_path, said.append) is None
    assert len(said) == 1 and said[0].startswith("note: no run record kept") and "-o RUN.json" in said[0]
