"""LocalConfig: record each run as readable JSON files in a folder on disk, no account or network."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, field_validator

from agent_evals import __version__
from agent_evals.core.platform import RecordedRun
from agent_evals.core.types import EvalResult, ExampleResult

DEFAULT_OUTPUT_DIR = Path(".agent-evals") / "experiments"
DEFAULT_EXPERIMENT = "default"
LAYOUT_SCHEMA = "agent-evals/local-experiment@1"

_FORBIDDEN = set('/\\:*?"<>|\0')
_MAX_SEGMENT = 128


class LocalConfig(BaseModel):
    """Write each run to ``<output_dir>/<experiment>/<run id>/`` as JSON.

    The run folder holds ``run.json`` (run metadata), ``examples.jsonl`` (one JSON record per
    example, in dataset order) and ``summary.json`` (pass rates, mean scores, counts).
    ``EvalResult.experiment_url`` is the folder's absolute path.
    """

    model_config = ConfigDict(frozen=True)

    platform_name: ClassVar[str] = "local"

    experiment: str | None = None
    """Experiment name, one safe path segment (no separators, not ``.``/``..``); default "default"."""
    output_dir: Path | None = None
    """Root folder for all experiments; default ``.agent-evals/experiments`` under the working dir."""

    def __init__(self, experiment: str | None = None, output_dir: str | Path | None = None) -> None:
        super().__init__(experiment=experiment, output_dir=output_dir)

    @field_validator("experiment")
    @classmethod
    def _safe_segment(cls, value: str | None) -> str | None:
        if value is None:
            return None
        problem = _segment_problem(value)
        if problem:
            raise ValueError(
                f"experiment {value!r} is not a safe folder name: {problem}; use letters, digits, "
                "'-', '_' or '.', e.g. 'multi_scorer'"
            )
        return value

    async def record(self, result: EvalResult) -> RecordedRun:
        """Write ``result`` off the event loop and say where it went."""
        return await asyncio.to_thread(self.write, result)

    def write(self, result: EvalResult, *, clock: Callable[[], datetime] | None = None) -> RecordedRun:
        """Write ``result`` into a new run folder (blocking)."""
        now = (clock or _utc_now)()
        experiment = self.experiment or DEFAULT_EXPERIMENT
        folder = self._new_run_folder(experiment, now)
        run_id = folder.name
        _write_json(
            folder / "run.json",
            {
                "schema": LAYOUT_SCHEMA,
                "platform": self.platform_name,
                "experiment": experiment,
                "run_id": run_id,
                "started_at": result.started_at,
                "written_at": now,
                "duration_s": result.duration,
                "scorers": list(result.pass_rates),
                "examples": len(result.examples),
                "tool_version": __version__,
            },
        )
        tmp = folder / "examples.jsonl.tmp"
        with tmp.open("w", encoding="utf-8") as handle:
            for example in result.examples:
                handle.write(json.dumps(_example_record(example), default=_jsonable, ensure_ascii=False))
                handle.write("\n")
        tmp.replace(folder / "examples.jsonl")
        _write_json(
            folder / "summary.json",
            {
                "pass_rates": result.pass_rates,
                "scores": result.scores,
                "summary": result.summary.model_dump(),
                "duration_s": result.duration,
            },
        )
        return RecordedRun(platform=self.platform_name, experiment_id=run_id, experiment_url=str(folder))

    def _new_run_folder(self, experiment: str, now: datetime) -> Path:
        root = (self.output_dir if self.output_dir is not None else DEFAULT_OUTPUT_DIR) / experiment
        root.mkdir(parents=True, exist_ok=True)
        stamp = now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        while True:
            folder = root / f"{stamp}-{secrets.token_hex(3)}"
            try:
                folder.mkdir()
            except FileExistsError:
                continue
            return folder.resolve()


def _segment_problem(value: str) -> str | None:
    if not value or not value.strip():
        return "it is empty"
    if value in (".", ".."):
        return "it refers to a parent or current folder"
    if value != value.strip():
        return "it starts or ends with whitespace"
    bad = sorted({c for c in value if c in _FORBIDDEN or ord(c) < 32})
    if bad:
        return f"it contains {', '.join(repr(c) for c in bad)}"
    if len(value) > _MAX_SEGMENT:
        return f"it is longer than {_MAX_SEGMENT} characters"
    return None


def _example_record(example: ExampleResult) -> dict[str, Any]:
    return {
        "index": example.index,
        "input": example.input,
        "expected": example.expected,
        "output": example.output,
        "error": example.error,
        "passed": example.passed,
        "duration_s": example.duration,
        "scores": {
            name: {
                "value": score.value,
                "passed": score.passed,
                "error": score.error,
                "reasoning": score.reasoning,
                "metadata": score.metadata,
            }
            for name, score in example.scores.items()
        },
        "metadata": example.metadata,
        "tool_calls": example.tool_calls,
        "context": example.context,
    }


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=_jsonable, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def _jsonable(value: Any) -> Any:
    """Fallback for json.dumps: models, dates, paths, sets, and anything else as its repr."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    dump = getattr(value, "model_dump", None) or getattr(value, "dict", None)
    if callable(dump):
        try:
            return dump()
        except Exception:
            return repr(value)
    return repr(value)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)
