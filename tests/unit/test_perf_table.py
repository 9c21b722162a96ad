"""The performance table's builder (benchmarks/perf/table.py) turns measured figures into the right verdicts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "perf" / "table.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("perf_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


table = _load()
NAMES = {"ref": "d4e6c0b", "compare_ref": "f18b4d8", "jobs": "10,000", "big": "100,000"}
NAMES |= {"compare_cases": "100,000", "help_runs": "10"}


def _verdicts(figures: dict[str, list[float]]) -> dict[str, str]:
    rows = table.build_table(figures, NAMES)
    return {target.key: row[5] for target, row in zip(table.TARGETS, rows, strict=True)}


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("code_vs_ref", 1.05, "ok"),
        ("code_vs_ref", 1.1, "ok"),  # the bound itself meets an at-most target
        ("code_vs_ref", 1.47, "OVER"),
        ("yaml_sync_vs_code", 1.51, "OVER"),
        ("yaml_async_vs_code", 1.2, "ok"),
        ("ezvals_vs_ours", 8.3, "ok"),
        ("ezvals_vs_ours", 6.0, "ok"),  # and the bound itself meets an at-least one
        ("ezvals_vs_ours", 3.75, "UNDER"),  # a peer ratio misses from below, not above
        ("run_peak_mib", 192.0, "ok"),
        ("run_peak_mib", 251.0, "OVER"),
        ("help_ms", 99.0, "ok"),
        ("help_ms", 140.0, "OVER"),
        ("compare_vs_ref", 0.97, "ok"),
        ("compare_vs_ref", 1.02, "OVER"),
    ],
)
def test_build_table__one_measured_figure__gets_its_targets_verdict(
    key: str, value: float, expected: str
) -> None:
    verdicts = _verdicts({key: [value]})
    assert verdicts[key] == expected
    assert {k: v for k, v in verdicts.items() if k != key} == dict.fromkeys(
        set(verdicts) - {key}, "not measured"
    )


def test_build_table__rounds__give_the_median_its_spread_and_the_medians_verdict() -> None:
    figures = {
        "code_vs_ref": [1.3, 1.05, 1.234, 1.0, 1.08],  # median 1.08 meets the bound though two rounds miss it
        "ezvals_vs_ours": [5.0, 7.0, 9.0],
        "run_peak_mib": [192.4],
        "help_ms": [70.0, 61.6, 55.0, 250.0],  # one slow run does not move the median
    }
    rows = {
        target.key: row for target, row in zip(table.TARGETS, table.build_table(figures, NAMES), strict=True)
    }
    assert rows["code_vs_ref"][1:] == [
        "10,000 code-first evals, CPU: this tree / d4e6c0b",
        "1.080x",
        "1.000x - 1.300x",
        "<= 1.100x",
        "ok",
    ]
    assert rows["ezvals_vs_ours"][2:] == ["7.000x", "5.000x - 9.000x", ">= 6.000x (goal 8x)", "ok"]
    assert rows["run_peak_mib"][2:] == ["192 MiB", "", "<= 250 MiB", "ok"]
    assert rows["help_ms"][2:] == ["66 ms", "55 ms - 250 ms", "<= 100 ms", "ok"]
    assert rows["compare_vs_ref"][1:] == [
        "compare 2 x 100,000 cases x 3 trials, CPU: tree / f18b4d8",
        "-",
        "",
        "<= 1.000x",
        "not measured",
    ]
    rendered = table.render(list(rows.values())).splitlines()
    assert rendered[0] == "| item | what | median | min - max | target | verdict |"
    assert len(rendered) == 2 + len(table.TARGETS)


def test_yaml_job__is_the_code_first_job_as_scenarios() -> None:
    document = yaml.safe_load(table.yaml_job(3, "trivial_agent"))
    assert document["agent"] == "trivial_agent:echo"
    (capability,) = document["capabilities"]
    assert capability["scenarios"] == [
        {"id": i, "prompt": str(i), "success": {"output": {"equals": str(i)}}} for i in range(3)
    ]
