"""Suite input digests: what a suite's results depend on, so `ci --reuse-unchanged` can tell it is unchanged."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import platform
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LOCKFILES = (
    "uv.lock",
    "poetry.lock",
    "pdm.lock",
    "Pipfile",
    "Pipfile.lock",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements*.txt",
    "requirements*.in",
    "constraints*.txt",
    "environment.yml",
    "environment.yaml",
    "conda-lock.yml",
    "package.json",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "agent-evals.yaml",
    "agent-evals.yml",
)
"""Files at the project root that are inputs of every suite, whether the run opened them or not:
dependency declarations and lock files, and the repo policy config."""

SKIPPED_PARTS = frozenset({".git", "__pycache__", "site-packages", "dist-packages"})
"""Path components whose files are never inputs: git's own data, bytecode caches (the source file
counts instead), installed packages (their versions count instead)."""

VOLATILE_ENV_PREFIXES = ("GITHUB_", "RUNNER_", "ACTIONS_", "INPUT_")
"""Environment variables left out of the digest because they differ between any two CI runs (the
event, the run, the runner)."""

CI_ONLY_OPTIONS = (
    "reuse-unchanged",
    "force",
    "output",
    "output-dir",
    "baseline",
    "baseline-artifact",
    "baseline-workflow",
    "baseline-store",
    "baseline-branch",
    "keep-baselines",
    "comment",
    "gate-id",
    "accept-label",
    "update-baseline",
    "github-token",
    "shards",
    "merge-shards",
)
"""`ci` options whose ``AGENT_EVALS_*`` variables never change what a suite does (where results go,
which baseline, the comment); every other ``AGENT_EVALS_*`` variable counts."""

VOLATILE_ENV = frozenset(
    {
        "_",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "INVOCATION_ID",
        "JOURNAL_STREAM",
        "SYSTEMD_EXEC_PID",
        "PYTEST_CURRENT_TEST",
        "TERM",
        "COLUMNS",
        "LINES",
        *("AGENT_EVALS_" + name.upper().replace("-", "_") for name in CI_ONLY_OPTIONS),
    }
)
"""Single variables left out: shell and service bookkeeping, and the `ci`-only options."""


def project_root(cwd: Path) -> Path:
    """The root whose files count as inputs: the nearest folder above ``cwd`` holding ``.git``, else ``cwd``."""
    resolved = cwd.resolve()
    for folder in (resolved, *resolved.parents):
        if (folder / ".git").exists():
            return folder
    return resolved


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def file_hash(path: Path) -> str:
    """The content hash of a file, ``missing`` when it is gone, ``unreadable`` when it cannot be read."""
    try:
        with path.open("rb") as handle:
            digest = hashlib.sha256()
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "unreadable"
    return digest.hexdigest()[:32]


def listing_hash(folder: Path) -> str:
    """A hash of a folder's entry names (bytecode caches left out), ``missing`` when it is gone."""
    try:
        names = sorted(p.name for p in folder.iterdir() if p.name != "__pycache__")
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "unreadable"
    return _sha("\n".join(names).encode("utf-8", "surrogateescape"))


def lockfiles(root: Path) -> list[str]:
    """The :data:`LOCKFILES` present at ``root``, as root-relative names."""
    try:
        names = [p.name for p in root.iterdir()]
    except OSError:
        return []
    return sorted(
        n for n in names if any(fnmatch.fnmatchcase(n, p) for p in LOCKFILES) and (root / n).is_file()
    )


def env_part(env: Mapping[str, str]) -> dict[str, Any]:
    """The environment as the digest sees it: the names of the variables counted, and one hash of their
    names and values (values are never stored: some are secrets)."""
    names = sorted(n for n in env if n not in VOLATILE_ENV and not n.startswith(VOLATILE_ENV_PREFIXES))
    digest = hashlib.sha256()
    for name in names:
        digest.update(f"{name}\0{env[name]}\0".encode("utf-8", "surrogateescape"))
    return {"names": names, "digest": digest.hexdigest()[:32]}


_TOOL: list[dict[str, str]] = []


def tool_part() -> dict[str, str]:
    """agent-evals itself: its version and a hash of its installed files (an unreleased build counts)."""
    if not _TOOL:
        from agent_evals.version import __version__

        package = Path(__file__).resolve().parent
        digest = hashlib.sha256()
        for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        _TOOL.append({"version": __version__, "digest": digest.hexdigest()[:32]})
    return dict(_TOOL[0])


def python_part() -> str:
    """The interpreter: full version string, platform and machine."""
    return f"{sys.version} | {sys.platform} | {platform.machine()}"


def package_versions(names: Iterable[str]) -> dict[str, str]:
    """Installed version of each distribution, ``missing`` when it is not installed."""
    from importlib import metadata

    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "missing"
    return out


def digest_of(inputs: Mapping[str, Any]) -> str:
    """The digest of an inputs object (every part but ``digest`` itself)."""
    body = {k: v for k, v in inputs.items() if k != "digest"}
    return _sha(json.dumps(body, sort_keys=True, ensure_ascii=True).encode())


def under(path: Path, root: Path, skipped: Iterable[Path] = ()) -> str | None:
    """``path`` relative to ``root`` (POSIX), or None when it is outside it or in a skipped place."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        return None
    if SKIPPED_PARTS & set(relative.parts):
        return None
    for folder in skipped:
        if path == folder or folder in path.parents:
            return None
    return relative.as_posix()


@dataclass
class Tracker:
    """Records the files a run opens for reading and the folders it lists, through a Python audit hook
    (PEP 578: every ``open``, ``os.listdir`` and ``os.scandir`` of Python code, imports included)."""

    files: set[str] = field(default_factory=set)
    """Absolute paths opened for reading."""
    dirs: dict[str, str] = field(default_factory=dict)
    """Absolute folder -> the hash of its listing the first time it was listed (before the run changed it)."""
    active: bool = False
    _local: threading.local = field(default_factory=threading.local)

    def start(self) -> None:
        """Install the hook (once per process; an audit hook cannot be removed) and start recording."""
        if not _HOOKED:
            sys.addaudithook(_dispatch)
            _HOOKED.append(True)
        _TRACKERS[:] = [self]
        self.active = True

    def stop(self) -> None:
        """Stop recording."""
        self.active = False

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook; it never raises (an exception would fail the open it watches)."""
        if not self.active or getattr(self._local, "busy", False):
            return
        self._local.busy = True
        try:
            if event == "open":
                self._opened(args)
            elif event in ("os.listdir", "os.scandir"):
                target = args[0] if args else None
                if target is None or isinstance(target, (str, bytes, os.PathLike)):
                    folder = os.path.abspath(os.fsdecode(target if target is not None else "."))  # noqa: PTH100  # cheap: no resolve
                    if folder not in self.dirs:
                        self.dirs[folder] = listing_hash(Path(folder))
        except Exception:  # recording is best effort; the open must go on
            pass
        finally:
            self._local.busy = False

    def _opened(self, args: tuple[Any, ...]) -> None:
        path, mode, flags = [*args, None, None, None][:3]
        if not isinstance(path, (str, bytes, os.PathLike)):
            return  # a file descriptor
        if isinstance(mode, str):
            if not ("r" in mode or "+" in mode):
                return  # written only: an output, not an input
        elif isinstance(flags, int) and flags & 3 == os.O_WRONLY:  # os.open: the access mode bits
            return
        self.files.add(os.path.abspath(os.fsdecode(path)))  # noqa: PTH100

    def inputs(
        self, root: Path, *, skipped: Iterable[Path] = (), extra: Iterable[Path] = ()
    ) -> dict[str, Any]:
        """The run side of a suite's inputs so far: project files read (modules imported included) with
        their hashes, folders listed, versions of the imported distributions, Python and agent-evals."""
        was, self.active = self.active, False
        try:
            return self._inputs(root.resolve(), [p.resolve() for p in skipped], extra)
        finally:
            self.active = was

    def _inputs(self, root: Path, skipped: list[Path], extra: Iterable[Path]) -> dict[str, Any]:
        paths = {Path(p) for p in list(self.files)}
        packages: set[str] = set()
        outside: set[str] = set()
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str):
                paths.add(Path(file).absolute())
                outside.add(name.partition(".")[0])
        files: dict[str, str] = {}
        for path in [*paths, *extra, *(root / n for n in lockfiles(root))]:
            resolved = path.resolve()
            relative = under(resolved, root, skipped)
            if relative is None or not (resolved.is_file() or not resolved.exists()):
                continue
            files[relative] = file_hash(resolved)
        for name in outside:
            packages.update(_distributions().get(name, ()))
        dirs = {}
        for folder, listed in list(self.dirs.items()):
            relative = under(Path(folder).resolve(), root, skipped)
            if relative is not None:
                dirs[relative] = listed
        return {
            "files": dict(sorted(files.items())),
            "dirs": dict(sorted(dirs.items())),
            "packages": package_versions(sorted(packages)),
            "python": python_part(),
            "tool": tool_part(),
        }


_HOOKED: list[bool] = []
_TRACKERS: list[Tracker] = []
_DISTRIBUTIONS: list[Mapping[str, list[str]]] = []


def _dispatch(event: str, args: tuple[Any, ...]) -> None:
    for tracker in _TRACKERS:
        tracker.hook(event, args)


def _distributions() -> Mapping[str, list[str]]:
    if not _DISTRIBUTIONS:
        from importlib import metadata

        _DISTRIBUTIONS.append(metadata.packages_distributions())
    return _DISTRIBUTIONS[0]


def current_inputs(
    recorded: Mapping[str, Any], root: Path, env: Mapping[str, str], invocation: Mapping[str, Any]
) -> dict[str, Any]:
    """A suite's inputs as they are now, over the same files, folders and packages its ``recorded``
    inputs list (plus the lock files at the root now), with its digest."""
    root = root.resolve()
    files = {name: file_hash(root / name) for name in recorded.get("files") or {}}
    files.update({name: file_hash(root / name) for name in lockfiles(root)})
    now: dict[str, Any] = {
        "files": dict(sorted(files.items())),
        "dirs": {name: listing_hash(root / name) for name in sorted(recorded.get("dirs") or {})},
        "packages": package_versions(sorted(recorded.get("packages") or {})),
        "python": python_part(),
        "tool": tool_part(),
        "env": env_part(env),
        "invocation": dict(invocation),
    }
    now["digest"] = digest_of(now)
    return now


def complete_inputs(
    run_side: Mapping[str, Any], env: Mapping[str, str], invocation: Mapping[str, Any]
) -> dict[str, Any]:
    """The recorded run side of a suite's inputs completed with how `ci` ran it, and its digest."""
    inputs = {**run_side, "env": env_part(env), "invocation": dict(invocation)}
    inputs["digest"] = digest_of(inputs)
    return inputs


def changes(recorded: Mapping[str, Any], now: Mapping[str, Any], limit: int = 5) -> list[str]:
    """What differs between two inputs objects, in words (the first ``limit`` files named)."""
    out: list[str] = []
    before, after = recorded.get("files") or {}, now.get("files") or {}
    changed = sorted(n for n in after.keys() | before.keys() if before.get(n) != after.get(n))
    if changed:
        shown = ", ".join(changed[:limit]) + (
            f" and {len(changed) - limit} more" if len(changed) > limit else ""
        )
        out.append(f"files changed: {shown}")
    listed = sorted(n for n, h in (now.get("dirs") or {}).items() if (recorded.get("dirs") or {}).get(n) != h)
    if listed:
        out.append(f"folder contents changed: {', '.join(n + '/' for n in listed[:limit])}")
    b_pkg, a_pkg = recorded.get("packages") or {}, now.get("packages") or {}
    bumped = [f"{n} {b_pkg.get(n)} -> {a_pkg.get(n)}" for n in sorted(a_pkg) if b_pkg.get(n) != a_pkg.get(n)]
    if bumped:
        out.append(f"package versions changed: {', '.join(bumped[:limit])}")
    if recorded.get("python") != now.get("python"):
        out.append(f"Python changed: {recorded.get('python')} -> {now.get('python')}")
    if recorded.get("tool") != now.get("tool"):
        version = (recorded.get("tool") or {}).get("version"), (now.get("tool") or {}).get("version")
        same = version[0] == version[1]
        out.append(
            f"agent-evals changed: {version[0]} -> {version[1]}" + (" (its files differ)" if same else "")
        )
    b_env, a_env = recorded.get("env") or {}, now.get("env") or {}
    if b_env != a_env:
        added = sorted(set(a_env.get("names", ())) - set(b_env.get("names", ())))
        gone = sorted(set(b_env.get("names", ())) - set(a_env.get("names", ())))
        parts = [f"added {', '.join(added[:limit])}"] if added else []
        parts += [f"removed {', '.join(gone[:limit])}"] if gone else []
        out.append("environment changed: " + ("; ".join(parts) if parts else "a variable's value differs"))
    if recorded.get("invocation") != now.get("invocation"):
        out.append("the command line, the policy flags or the policy file differ")
    return out or ["inputs differ"]
