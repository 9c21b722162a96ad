"""Where the modules a benchmark or eval file names are found: its own folder first, the working directory last."""

from __future__ import annotations

import sys
from pathlib import Path


def search_from(folder: Path) -> None:
    """Put ``folder`` (a benchmark's or eval file's folder) first on ``sys.path`` and the working
    directory last, each once: ``agent: app.agent:Agent`` with ``app/`` at the project's root then
    imports under the ``agent-evals`` script as under ``python -m agent_evals`` and in ``ci``, whose
    child runs in the project's root, while nothing the working directory holds can shadow an
    installed module."""
    first = str(folder.resolve())
    if first not in sys.path:
        sys.path.insert(0, first)
    here = str(Path.cwd())
    if here not in sys.path and "" not in sys.path:  # "": the working directory is searched already
        sys.path.append(here)
