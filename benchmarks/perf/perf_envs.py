"""Build the virtual environments the performance table measures, once, under a cache folder."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EZVALS = "ezvals==0.2.0"


def _python(folder: Path) -> Path:
    return folder / "bin" / "python"


def _build(folder: Path, spec: list[str], label: str) -> Path:
    """A venv in ``folder`` with ``pip install SPEC``; reused when its stamp says the same spec."""
    stamp = folder / ".perf-installed"
    wanted = " ".join(spec)
    if stamp.exists() and stamp.read_text(encoding="utf-8") == wanted:
        return _python(folder)
    print(f"building {label}: pip install {wanted} into {folder}", file=sys.stderr, flush=True)
    venv.create(folder, with_pip=True, clear=True)
    done = subprocess.run(
        [str(_python(folder)), "-m", "pip", "install", "--quiet", *spec], capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"could not build {label} in {folder}: pip said\n{done.stderr}\nfix that and run again")
    stamp.write_text(wanted, encoding="utf-8")
    return _python(folder)


def _checkout(ref: str, cache: Path) -> tuple[str, Path]:
    """The source of git ``ref`` (as its full commit id) unpacked into the cache, via ``git archive``."""
    found = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        sys.exit(f"git ref {ref!r} is not in {REPO}: fetch it (git fetch) or pass another ref")
    commit = found.stdout.strip()
    folder = cache / f"src-{commit[:12]}"
    if not (folder / "pyproject.toml").exists():
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", commit], capture_output=True, check=True
        )
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
    return commit, folder


def tree_version() -> str:
    """This working tree's commit, with '-dirty' when it has uncommitted changes."""
    done = subprocess.run(
        ["git", "-C", str(REPO), "describe", "--always", "--dirty", "--abbrev=12"],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() or "unknown (not a git checkout)"


def tree_python(cache: Path) -> Path:
    """Python of a core install (no extras) of this working tree: editable, so it runs the current sources."""
    return _build(cache / "venv-tree", ["-e", str(REPO)], "the working tree's core install")


def ref_python(ref: str, cache: Path) -> tuple[str, Path]:
    """Full commit id of ``ref`` and the Python of a core install (editable, no extras) of its source."""
    commit, source = _checkout(ref, cache)
    return commit, _build(cache / f"venv-{commit[:12]}", ["-e", str(source)], f"the core install of {ref}")


def ezvals_python(cache: Path) -> Path:
    """Python of a venv with ezvals 0.2.0 (the peer) and nothing else."""
    return _build(cache / "venv-ezvals", [EZVALS], EZVALS)
