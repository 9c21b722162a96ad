"""The response cache's folder: one JSON file per (request, trial index, occurrence), written atomically.

A key hashes the request's exact bytes (for HTTP: method, URL and body; for LangChain: the model's
settings string and the serialized prompt), the trial index and how many identical requests the
trial made before it. So trial 2 never replays trial 1, a prompt that changed by one byte is a miss,
and a baseline and a candidate run share an entry only when they sent the byte-identical request.
Entries hold the response only (never request headers, so never an API key). The folder is plain
files, what ``actions/cache`` keeps between workflow runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from agent_evals.adapters.cache.keys import request_digest
from agent_evals.calls.scope import TrialScope, cache_active, current_scope
from agent_evals.errors import CacheMiss, UsageError

ENTRY_SCHEMA = "agent-evals/cache@1"
DEFAULT_DIR = Path(".agent-evals/cache")
"""Where ``--cache`` keeps its entries unless ``--cache-dir`` says otherwise."""

Mode = Literal["record", "replay"]


class ResponseCache:
    """A cache folder in ``record`` or ``replay`` mode; the hooks find it with :func:`calls.scope.active_cache`."""

    def __init__(self, mode: Mode, folder: str | os.PathLike[str] = DEFAULT_DIR) -> None:
        """``mode`` is ``record`` (call live, store every answer) or ``replay`` (answer only from the folder)."""
        if mode not in ("record", "replay"):
            raise UsageError(f"--cache must be record, replay or off, got {mode!r}")
        self.mode: Mode = mode
        self.folder = Path(folder)
        if mode == "replay" and not self.folder.is_dir():
            raise UsageError(
                f"--cache replay: the cache folder {self.folder} does not exist; run once with "
                "--cache record (or restore it with actions/cache) first"
            )
        self.outside: list[str] = []
        """Model calls made outside any trial (a scorer's judge, an agent's setup): made live, uncached."""
        self._lock = threading.Lock()
        if mode == "record":
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UsageError(
                    f"--cache record: cannot create the cache folder {self.folder}: {exc}"
                ) from exc

    def __repr__(self) -> str:
        return f"ResponseCache({self.mode!r}, {str(self.folder)!r})"

    @contextlib.contextmanager
    def activate(self) -> Iterator[ResponseCache]:
        """Make this the run's cache for the ``with`` block: the httpx hook, the ``http.client`` hook
        (urllib, requests) and LangChain's global LLM cache."""
        from agent_evals.adapters.cache.http_hook import HOOK
        from agent_evals.adapters.cache.langchain import langchain_hooked
        from agent_evals.adapters.cache.stdlib_hook import hooked
        from agent_evals.calls.hooks import add_hook, remove_hook

        add_hook(HOOK)  # inside the usage hook (installed outermost), so replays are metered too
        try:
            with cache_active(self), hooked(), langchain_hooked(self):
                yield self
        finally:
            remove_hook(HOOK)

    def lookup(self, kind: str, digest: str, what: str) -> tuple[TrialScope | None, dict[str, Any] | None]:
        """Find the entry for this request in the current trial (replay mode), else None to call live.

        Replay mode raises :class:`CacheMiss` (and notes it on the trial) when there is no entry.
        A call made outside any trial goes out live in either mode and is listed in ``outside``.
        ``what`` names the request in messages.
        """
        scope = current_scope()
        occurrence = scope.occurrence(f"{kind}:{digest}") if scope is not None else 0
        if scope is None:  # a scorer's judge, an agent's setup(): not the trial's calls, never cached
            with self._lock:
                self.outside.append(what)
            return None, None
        if self.mode == "record":
            return scope, {"occurrence": occurrence}
        entry = self._read(self._path(kind, digest, scope.trial, occurrence), kind, scope.trial, occurrence)
        if entry is None:
            where = f"{what} (trial {scope.trial}, call {occurrence + 1} of this request)"
            scope.missed(where)
            raise CacheMiss(
                f"--cache replay has no recorded response for {where} in {self.folder}; "
                "record it with --cache record, or run with --cache off"
            )
        scope.note("replayed")
        return scope, entry

    def store(
        self, kind: str, digest: str, scope: TrialScope, occurrence: int, entry: dict[str, Any]
    ) -> None:
        """Write the entry of a live answer (record mode), replacing an older one."""
        path = self._path(kind, digest, scope.trial, occurrence)
        data = {"schema": ENTRY_SCHEMA, "kind": kind, "trial": scope.trial, "occurrence": occurrence, **entry}
        handle, tmp = tempfile.mkstemp(dir=self.folder, prefix=".entry-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False)
            Path(tmp).replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                Path(tmp).unlink()
            raise
        scope.note("recorded")

    def _path(self, kind: str, digest: str, trial: int, occurrence: int) -> Path:
        return self.folder / f"{request_digest(kind, digest, str(trial), str(occurrence))}.json"

    @staticmethod
    def _read(path: Path, kind: str, trial: int, occurrence: int) -> dict[str, Any] | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None  # a torn or foreign file is a miss, never a wrong answer
        if not isinstance(data, dict) or data.get("schema") != ENTRY_SCHEMA:
            return None
        if (data.get("kind"), data.get("trial"), data.get("occurrence")) != (kind, trial, occurrence):
            return None  # a file copied or renamed under another entry's name answers nothing
        return data


def open_cache(mode: str, folder: str | os.PathLike[str] | None = None) -> ResponseCache | None:
    """The run's cache for ``--cache MODE`` (None for ``off``); raises UsageError for a bad mode or folder."""
    if mode == "off":
        return None
    if mode not in ("record", "replay"):
        raise UsageError(f"--cache must be record, replay or off, got {mode!r}")
    return ResponseCache(mode, DEFAULT_DIR if folder is None else folder)  # type: ignore[arg-type]
