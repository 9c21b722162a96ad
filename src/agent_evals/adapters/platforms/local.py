"""LocalConfig: record each run as readable JSON files in a folder on disk, no account or network."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from agent_evals.clock import iso_utc
from agent_evals.core.platform import RecordedRun
from agent_evals.core.types import EvalExample, EvalResult
from agent_evals.version import __version__

DEFAULT_OUTPUT_DIR = Path("local_eval_results")
LAYOUT_SCHEMA = "agent-evals/local-experiment@2"

_FORBIDDEN = set('/\\:*?"<>|\0')
_MAX_SEGMENT = 128


class LocalConfig(BaseModel):
    """Write each run to ``<output_dir>/experiments/<experiment>-<run id>/`` as readable JSON.

    The run folder holds ``metadata.json`` (the run's id, name, creation time and config),
    ``results.jsonl`` (one JSON record per example, in dataset order) and ``summary.json`` (pass
    rates, mean scores, counts). The run id is a UUID; ``EvalResult.experiment_url`` is the
    folder's absolute path. Nothing is encrypted: the files are plain JSON anyone with access
    to the folder can read. Unknown keywords are refused (ValidationError).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    platform_name: ClassVar[str] = "local"

    name: Literal["local"] = "local"
    """The platform's name."""
    experiment: str | None = None
    """The run's folder name prefix, one safe path segment; default ``eval-<unix time>``."""
    output_dir: str | Path | None = None
    """Root folder, kept as given; None means ``./local_eval_results`` under the working dir."""

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
        experiment = self.experiment or f"eval-{int(now.timestamp())}"
        folder, run_id = self._new_run_folder(experiment)
        _write_json(
            folder / "metadata.json",
            {
                "experiment_id": run_id,
                "experiment_name": experiment,
                "created_at": now.timestamp(),
                "created_at_iso": iso_utc(now, zulu=False, timespec="auto"),
                "config": self.model_dump(mode="json"),
                "platform": self.platform_name,
                "schema": LAYOUT_SCHEMA,
                "started_at": result.started_at,
                "scorers": list(result.pass_rates),
                "tool_version": __version__,
            },
        )
        tmp = folder / "results.jsonl.tmp"
        with tmp.open("w", encoding="utf-8") as handle:
            for example in result.examples:
                handle.write(json.dumps(_example_record(example), default=_jsonable, ensure_ascii=False))
                handle.write("\n")
        tmp.replace(folder / "results.jsonl")
        _write_json(
            folder / "summary.json",
            {
                "experiment_id": run_id,
                "platform": self.platform_name,
                "scores": result.scores,
                "pass_rates": result.pass_rates,
                "summary": result.summary,
                "duration": result.duration,
                "total_examples": len(result.examples),
            },
        )
        return RecordedRun(platform=self.platform_name, experiment_id=run_id, experiment_url=str(folder))

    def _new_run_folder(self, experiment: str) -> tuple[Path, str]:
        root = Path(self.output_dir) if self.output_dir is not None else DEFAULT_OUTPUT_DIR
        parent = root / "experiments"
        parent.mkdir(parents=True, exist_ok=True)
        while True:
            run_id = str(uuid.uuid4())
            folder = parent / f"{experiment}-{run_id}"
            try:
                folder.mkdir()
            except FileExistsError:
                continue
            return folder.resolve(), run_id


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


def _example_record(example: EvalExample) -> dict[str, Any]:
    record = example.model_dump()
    record["passed"] = example.passed
    return record


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
