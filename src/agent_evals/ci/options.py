"""What `agent-evals ci` was asked to do: its options, read by every step of the flow."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_evals.github.deadline import DEFAULT_DEADLINE_S

CommentMode = Literal["always", "on-failure", "never"]


@dataclass(frozen=True)
class CIOptions:
    """Everything `agent-evals ci` was asked to do (flags and their ``AGENT_EVALS_*`` variables)."""

    paths: tuple[str, ...] = ()
    """Eval files, benchmark YAML or folders."""
    baseline: Path | None = None
    """A baseline run record file (skips the artifact lookup)."""
    baseline_artifact: str = "agent-evals-baseline"
    """Name of the baseline artifact."""
    baseline_workflow: str | None = None
    """Workflow file whose push runs upload the baseline (default: the current workflow)."""
    baseline_store: Literal["artifact", "branch"] = "artifact"
    """Where baselines live: workflow artifacts, or a data branch."""
    baseline_branch: str = "agent-evals-data"
    """The data branch (``baseline_store="branch"``)."""
    keep_baselines: int = 10
    """Baselines kept per gate on the data branch."""
    output_dir: Path = Path(".agent-evals/ci")
    """Where the run record and report go."""
    output: Path | None = None
    """Run record path (default ``output_dir/run.json``)."""
    agent: str | None = None
    """Agent ``module:attr`` for benchmarks."""
    config: Path | None = None
    """Repo policy config file (default: discovered in the working directory)."""
    comment: CommentMode = "always"
    """When to write the sticky comment."""
    gate_id: str | None = None
    """Gate id (default derived from workflow, job and paths)."""
    overrides: Mapping[str, Any] = field(default_factory=dict)
    """Policy knobs from flags (None values ignored)."""
    trials: int | None = None
    """Trials per case."""
    concurrency: int | None = None
    """Trials in flight."""
    confirm_trials: int = 0
    """Re-run the flipped cases of a failing or inconclusive suite this many more times (0: off)."""
    run_flags: tuple[str, ...] = ()
    """Further flags for the child ``agent-evals run`` (``--retry-errors N``, ``--cache MODE``, ...)."""
    hold_env: tuple[str, ...] = ()
    """Variables (or ``PREFIX*``) held back from the child run besides the job's credentials
    (``ci/child_env.py``)."""
    update_baseline: bool = False
    """Upload the run record as the baseline even off the default branch."""
    accept_label: str = "agent-evals:accept-regression"
    """PR label that accepts a failed verdict."""
    shards: Path | None = None
    """A folder of shard records (``run --shard``) to merge instead of running the suites."""
    reuse_unchanged: bool = False
    """Copy the results of suites whose inputs are unchanged since the baseline instead of running them."""
    force: bool = False
    """Run every suite even with ``reuse_unchanged``."""
    github_deadline_s: float = DEFAULT_DEADLINE_S
    """Bound in seconds of each GitHub call or download, and of the whole baseline lookup (a host that
    stalls or trickles past it: no verdict, exit 3)."""
    github_token: str | None = field(default=None, repr=False)
    """Token from ``--github-token`` (else ``GITHUB_TOKEN``)."""
