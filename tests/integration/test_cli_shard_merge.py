"""`run --shard i/n` and `merge` end to end on the demo benchmark and an example eval file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_evals.schemas import load_run_schema

REPO = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).with_name("agent-evals"))
FILES = ("benchmarks/home.yaml", "examples/eval_cases.py", "examples/eval_trials.py")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], cwd=REPO, capture_output=True, text=True, timeout=180, check=False)


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _without_timings(record: dict[str, Any]) -> dict[str, Any]:
    record = json.loads(json.dumps(record))
    for key in ("started_at", "finished_at"):
        record["run"].pop(key, None)
    for suite in record["suites"]:
        for case in suite["cases"]:
            for trial in case["trials"]:
                trial.pop("duration_s", None)
    return record


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The unsharded run and its four shards, each a separate process as matrix jobs would be."""
    root = tmp_path_factory.mktemp("shards")
    paths = {"full": root / "full.json"}
    done = _cli("run", *FILES, "-q", "-o", str(paths["full"]))
    assert done.returncode == 0, done.stderr
    for i in range(1, 5):
        paths[f"{i}"] = root / f"shard-{i}.json"
        done = _cli("run", *FILES, "-q", "--shard", f"{i}/4", "-o", str(paths[f"{i}"]))
        assert done.returncode == 0, done.stderr
    return paths


def _shards(runs: dict[str, Path]) -> list[str]:
    return [str(runs[f"{i}"]) for i in range(1, 5)]


def test_each_shard_record_says_which_shard_it_is_and_is_valid_against_the_schema(
    runs: dict[str, Path],
) -> None:
    for i in range(1, 5):
        record = _load(runs[f"{i}"])
        jsonschema.validate(record, load_run_schema())
        assert (record["run"]["shard"]["index"], record["run"]["shard"]["count"]) == (i, 4)
        whole = record["run"]["shard"]["suites"]  # the whole suites, the same in every shard
        assert whole == _load(runs["1"])["run"]["shard"]["suites"]
        assert {sid: w["cases"] for sid, w in whole.items()} == {
            s["id"]: len(s["cases"]) for s in _load(runs["full"])["suites"]
        }
    assert "shard" not in _load(runs["full"])["run"]


def test_the_shards_split_the_trials_evenly_and_cover_every_case_once(runs: dict[str, Path]) -> None:
    full_ids = sorted(c["id"] for s in _load(runs["full"])["suites"] for c in s["cases"])
    shard_ids: list[str] = []
    loads = []
    for i in range(1, 5):
        cases = [c for s in _load(runs[f"{i}"])["suites"] for c in s["cases"]]
        shard_ids += [c["id"] for c in cases]
        loads.append(sum(len(c["trials"]) for c in cases))
    assert sorted(shard_ids) == full_ids
    largest = max(len(c["trials"]) for s in _load(runs["full"])["suites"] for c in s["cases"])
    assert max(loads) - min(loads) <= largest


def test_merged_record_equals_the_unsharded_record_up_to_timings(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "run.json"
    done = _cli("merge", *reversed(_shards(runs)), "-o", str(out))
    assert done.returncode == 0, done.stderr
    merged = _load(out)
    jsonschema.validate(merged, load_run_schema())
    assert merged["run"]["complete"] is True
    assert _without_timings(merged) == _without_timings(_load(runs["full"]))


def test_merged_record_compares_like_the_unsharded_one(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    assert _cli("merge", *_shards(runs), "-o", str(out)).returncode == 0
    done = _cli("compare", str(runs["full"]), str(out))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_shard_record_never_passes_compare_as_the_candidate(runs: dict[str, Path]) -> None:
    done = _cli("compare", str(runs["full"]), str(runs["2"]))
    assert done.returncode == 3, done.stdout
    assert "shard 2/4" in done.stdout and "agent-evals merge" in done.stdout


def test_missing_shard__exit_2_naming_it(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    done = _cli("merge", str(runs["1"]), str(runs["2"]), str(runs["4"]), "-o", str(out))
    assert done.returncode == 2
    assert "shard(s) 3/4 missing" in done.stderr and "--allow-partial" in done.stderr
    assert not out.exists()


def test_allow_partial__writes_an_incomplete_record_that_compare_never_passes(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "run.json"
    done = _cli("merge", str(runs["1"]), str(runs["3"]), "--allow-partial", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "incomplete" in done.stderr and "shard 2" in done.stderr and "shard 4" in done.stderr
    assert _load(out)["run"]["complete"] is False
    compared = _cli("compare", str(runs["full"]), str(out))
    assert compared.returncode == 3, compared.stdout


def _edited(source: Path, target: Path, edit: Any) -> str:
    record = _load(source)
    edit(record)
    target.write_text(json.dumps(record), encoding="utf-8")
    return str(target)


def _other_version(record: dict[str, Any]) -> None:
    record["run"]["tool_version"] = "0.0.0-other"


def _other_fingerprint(record: dict[str, Any]) -> None:
    record["suites"][0]["fingerprint"] = "0" * 16


def _other_count(record: dict[str, Any]) -> None:
    record["run"]["shard"]["count"] = 5


def _unsharded(record: dict[str, Any]) -> None:
    del record["run"]["shard"]


def _interrupted(record: dict[str, Any]) -> None:
    record["run"]["complete"] = False


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_other_version, "written by agent-evals 0.0.0-other"),
        (_other_fingerprint, "has fingerprint 0000000000000000"),
        (_other_count, "different splits"),
        (_unsharded, "not a shard record"),
        (_interrupted, "interrupted shard record(s)"),
    ],
)
def test_shards_that_are_not_one_run__exit_2_naming_the_file(
    runs: dict[str, Path], tmp_path: Path, edit: Any, message: str
) -> None:
    bad = _edited(runs["3"], tmp_path / "bad-3.json", edit)
    done = _cli(
        "merge", str(runs["1"]), str(runs["2"]), bad, str(runs["4"]), "-o", str(tmp_path / "run.json")
    )
    assert done.returncode == 2, done.stdout
    assert message in done.stderr
    assert "bad-3.json" in done.stderr


def test_overlapping_shards__exit_2_naming_the_case_and_both_files(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    def _as_shard_3(record: dict[str, Any]) -> None:
        record["run"]["shard"]["index"] = 3

    copy = _edited(runs["2"], tmp_path / "copy-of-2.json", _as_shard_3)
    done = _cli(
        "merge", str(runs["1"]), str(runs["2"]), copy, str(runs["4"]), "-o", str(tmp_path / "run.json")
    )
    assert done.returncode == 2
    assert "is also in" in done.stderr and "copy-of-2.json" in done.stderr and "shard-2.json" in done.stderr


def test_a_shard_record_missing_a_case__exit_2_naming_the_suite_and_position(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    def _drop_one(record: dict[str, Any]) -> None:
        suite = next(s for s in record["suites"] if len(s["cases"]) > 1)
        i = min(range(len(suite["cases"])), key=lambda k: suite["case_positions"][k])
        del suite["cases"][i], suite["case_positions"][i]

    cut = _edited(runs["1"], tmp_path / "cut-1.json", _drop_one)
    done = _cli("merge", cut, *_shards(runs)[1:], "-o", str(tmp_path / "run.json"))
    assert done.returncode == 2
    assert "lack the case at position" in done.stderr


def test_the_same_shard_twice__exit_2(runs: dict[str, Path], tmp_path: Path) -> None:
    done = _cli("merge", str(runs["1"]), str(runs["1"]), "-o", str(tmp_path / "run.json"))
    assert done.returncode == 2
    assert "shard 1/4 was already given" in done.stderr


def test_shards_of_a_different_trial_count__refused_as_different_fingerprints(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    other = tmp_path / "shard-4-trials.json"
    done = _cli("run", *FILES, "-q", "--trials", "2", "--shard", "4/4", "-o", str(other))
    assert done.returncode == 0, done.stderr
    done = _cli("merge", *_shards(runs)[:3], str(other), "-o", str(tmp_path / "run.json"))
    assert done.returncode == 2
    assert "fingerprint" in done.stderr and "shard-4-trials.json" in done.stderr


def test_an_empty_shard__exit_0_with_an_empty_valid_record(tmp_path: Path) -> None:
    out = tmp_path / "empty.json"
    done = _cli("run", "examples/eval_trials.py", "-q", "--shard", "2/2", "-o", str(out))
    assert done.returncode == 0, done.stderr
    record = _load(out)
    jsonschema.validate(record, load_run_schema())
    assert (record["run"]["shard"]["index"], record["run"]["shard"]["count"]) == (2, 2)
    assert [c for s in record["suites"] for c in s["cases"]] == []


def _holder_of_last(runs: dict[str, Path]) -> tuple[int, str]:
    """The shard holding the last case of the first suite with more than one case, and that suite."""
    full = next(s for s in _load(runs["full"])["suites"] if len(s["cases"]) > 1)
    last = len(full["cases"]) - 1
    for i in range(1, 5):
        for suite in _load(runs[f"{i}"])["suites"]:
            if suite["id"] == full["id"] and last in suite["case_positions"]:
                return i, full["id"]
    raise AssertionError("no shard holds the last case")


def _drop_case_at(suite_id: str, position: int) -> Any:
    def edit(record: dict[str, Any]) -> None:
        suite = next(s for s in record["suites"] if s["id"] == suite_id)
        i = suite["case_positions"].index(position)
        del suite["cases"][i], suite["case_positions"][i]

    return edit


def test_a_shard_set_lacking_the_suites_last_case__exit_2_naming_the_suite(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    holder, suite_id = _holder_of_last(runs)
    last = len(next(s for s in _load(runs["full"])["suites"] if s["id"] == suite_id)["cases"]) - 1
    cut = _edited(runs[f"{holder}"], tmp_path / f"cut-{holder}.json", _drop_case_at(suite_id, last))
    shards = [cut if i == holder else str(runs[f"{i}"]) for i in range(1, 5)]
    done = _cli("merge", *shards, "-o", str(tmp_path / "run.json"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"suite {suite_id!r}" in done.stderr and f"position {last + 1} of the suite" in done.stderr
    assert not (tmp_path / "run.json").exists()


def test_allow_partial__names_the_cases_no_shard_holds(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    done = _cli("merge", str(runs["1"]), str(runs["3"]), "--allow-partial", "-o", str(out))
    assert done.returncode == 0, done.stderr
    full = _load(runs["full"])["suites"]
    held = {s["id"]: len(s["cases"]) for s in _load(out)["suites"]}
    for suite in full:
        absent = len(suite["cases"]) - held.get(suite["id"], 0)
        if absent:
            assert f"{absent} case(s) of suite {suite['id']!r}" in done.stderr


def _no_commit(record: dict[str, Any]) -> None:
    record["run"]["git"]["sha"] = None


def test_a_shard_without_a_commit_beside_shards_with_one__exit_2(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    assert _load(runs["1"])["run"]["git"]["sha"]  # the repository's commit
    bare = _edited(runs["3"], tmp_path / "bare-3.json", _no_commit)
    done = _cli("merge", str(runs["1"]), str(runs["2"]), bare, str(runs["4"]), "-o", str(tmp_path / "r.json"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "bare-3.json: records no commit" in done.stderr


EVALS = """
from agent_evals import eval

{body}
"""


def test_shards_run_from_different_suite_file_contents__exit_2(tmp_path: Path) -> None:
    evals = "\n".join(f"@eval()\ndef test_{i}():\n    return {{answer}} == 4\n" for i in range(6))
    source = tmp_path / "eval_math.py"
    shards = []
    for index, answer in ((1, "2 + 2"), (2, "2 + 3")):  # the second shard ran an edited file
        source.write_text(EVALS.format(body=evals.format(answer=answer)), encoding="utf-8")
        out = tmp_path / f"shard-{index}.json"
        done = subprocess.run(
            [CLI, "run", str(source), "-q", "--shard", f"{index}/2", "-o", str(out)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr
        shards.append(str(out))
    done = _cli("merge", *shards, "-o", str(tmp_path / "run.json"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "shard-2.json" in done.stderr and "contents differ" in done.stderr


@pytest.mark.parametrize("value", ["0/4", "5/4", "two/4"])
def test_bad_shard_value__exit_2(value: str) -> None:
    done = _cli("run", "examples/eval_trials.py", "--shard", value)
    assert done.returncode == 2
    assert "--shard" in done.stderr
