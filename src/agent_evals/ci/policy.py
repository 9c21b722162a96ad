"""The policy `ci` gates a pull request under: the base side's is the floor, the pull request may only tighten."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals.errors import GitHubError

if TYPE_CHECKING:
    from agent_evals.ci.options import CIOptions
    from agent_evals.ci.plan import CIPlan
    from agent_evals.ci.record import CIRecord
    from agent_evals.cost.prices import PriceTable
    from agent_evals.gate.floor import Loosening
    from agent_evals.gate.policy import Policy
    from agent_evals.github.baseline import BaselineResult
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.labels import Acceptance
    from agent_evals.github.settings import ActionsSettings
    from agent_evals.record.model import RunRecord
    from agent_evals.record.summary import RunSummary

BASE_SOURCE = "baseline record"
"""How the policy recorded in the baseline record is named in reports."""


@dataclass
class GatePolicy:
    """The policy in force, the pull request's own, and what the pull request loosened."""

    policy: Policy
    """What the gate applies: the floored policy, or the pull request's own when the label accepts."""
    own: Policy
    """The pull request's own policy (its files and the command line)."""
    floored: Policy
    """Each knob the stricter of the base side's and the pull request's."""
    loosened: list[Loosening] = field(default_factory=list)
    """Knobs the pull request set looser than the base side."""
    acceptance: Acceptance | None = None
    """The accept label, read when something was loosened (None: not read)."""
    unavailable: str | None = None
    """Why the base side's policy could not be read (GitHub gave no usable answer): no verdict."""
    base_prices: PriceTable | None = None
    """On a pull request, the base commit's price table: it prices both sides under the floored policy."""

    def prices(self, policy: Policy) -> PriceTable | None:
        """The price table a comparison under ``policy`` uses (None: the working directory's)."""
        return self.base_prices if policy is self.floored else None

    @property
    def label_applies(self) -> bool:
        """The accept label is on and lets the pull request's looser policy apply."""
        return bool(self.loosened and self.acceptance is not None and self.acceptance.accepted)

    def lines(self, label: str) -> list[str]:
        """One line per loosened knob, for the comment, the job summary and the log."""
        return [each.line(label, accepted=self.label_applies) for each in self.loosened]


def suite_groups(suites: Iterable[tuple[str, Iterable[str]]]) -> dict[str, list[str]]:
    """Suite id -> its groups."""
    return {sid: sorted(set(groups)) for sid, groups in suites}


def run_groups(summary: RunSummary) -> dict[str, list[str]]:
    """Suite id -> its groups, of a summarised record."""
    return suite_groups((s.header["id"], s.view.groups) for s in summary.suites)


def stamp(record: CIRecord, policy: Policy) -> None:
    """Record in each suite the policy that applies to it (its own sources: what the baseline run uploads)."""
    from agent_evals.gate.floor import recorded_form

    for index, suite in enumerate(record.summary.suites):
        sid = suite.header["id"]
        record.set_suite_field(index, "policy", recorded_form(policy, sid, suite.view.groups))


def baseline_suites(
    found: RunRecord | None, file_summary: RunSummary | None
) -> list[tuple[str, Any, Mapping[str, Any] | None]]:
    """``(suite id, recorded policy, gate block)`` of each suite of the baseline record."""
    if found is not None:
        return [(s.id, s.policy, s.gate) for s in found.suites]
    if file_summary is not None:
        return [(s.header["id"], s.header.get("policy"), s.header.get("gate")) for s in file_summary.suites]
    return []


def floored_policy(
    own: Policy,
    candidate_suites: Iterable[str],
    baseline: list[tuple[str, Any, Mapping[str, Any] | None]],
    base_files: Callable[[], Path | None],
    overrides: Mapping[str, Any],
) -> Policy:
    """``own`` floored by the base side: the policy each baseline suite recorded, and for a suite without
    one (an older record, a new suite, no baseline) the base commit's files: its repo config
    (``base_files()``, read only when needed) and the baseline's suite ``gate:`` blocks, under the same
    command-line flags (the workflow is trusted)."""
    from agent_evals.gate.floor import recorded_policies
    from agent_evals.gate.policy import resolve_policy

    recorded = recorded_policies(((sid, data) for sid, data, _ in baseline), source=BASE_SOURCE)
    files: Policy | None = None
    if any(sid not in recorded for sid in candidate_suites):
        files = resolve_policy(
            repo_config=base_files(),
            suite_blocks={sid: block for sid, _, block in baseline},
            overrides=dict(overrides),
        )
        files = files.model_copy(
            update={
                "layers": [
                    layer.model_copy(update={"source": f"base: {layer.source}"}) for layer in files.layers
                ]
            }
        )
    return own.model_copy(update={"floor": files, "floor_by_suite": recorded})


def base_table(directory: Path) -> PriceTable:
    """The base commit's price table (its ``agent-evals.yaml`` as :func:`fetch_base_config` copied it
    into ``directory``, else the built-in one). A candidate's recorded cost does not stand in for a
    model it cannot price: the pull request's run worked that out with its own ``prices:``."""
    from agent_evals.cost.prices import load_table

    return load_table(directory, recorded=False)


def prices_changed(base: PriceTable | None, cwd: Path) -> list[Loosening]:
    """A line when the pull request's ``prices:`` differ from the base side's: the base's price both
    sides until a maintainer accepts (the accept label lets the pull request's table apply)."""
    from agent_evals.cost.prices import load_table
    from agent_evals.gate.floor import Loosening

    own = load_table(cwd)
    if base is None or own.prices == base.prices:
        return []
    changed = sorted(m for m in {*own.prices, *base.prices} if own.prices.get(m) != base.prices.get(m))
    shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    return [Loosening("prices", "the base branch's table", f"its own ({shown})")]


def fetch_base_config(
    client: GitHubClient | None,
    repo: str | None,
    base_sha: str | None,
    *,
    cwd: Path,
    workspace: str | None,
    config: Path | None,
    into: Path,
) -> Path | None:
    """The repo config file as it is at the base commit (the contents API), copied into ``into``; None
    when the base commit has none. ``config``: the ``--config`` file (else the discovered names)."""
    from agent_evals.files.repo_config import REPO_CONFIG_NAMES
    from agent_evals.gate.policy import discover_repo_config

    explicit = (config if config.is_absolute() else cwd / config) if config is not None else None
    wanted = [explicit] if explicit is not None else [cwd / n for n in (*REPO_CONFIG_NAMES, "pyproject.toml")]
    root = Path(workspace) if workspace else cwd
    if explicit is not None and not _inside(explicit, root):
        return explicit  # not a file of the repository: the pull request cannot change it
    if client is None or not repo or not base_sha:
        return None  # nothing to read it with: the defaults (and the baseline's blocks) are the floor
    for path in wanted:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
        data = _read_at(client, repo, rel, base_sha)
        if data is None:
            continue
        into.mkdir(parents=True, exist_ok=True)
        (into / path.name).write_bytes(data)
        if explicit is not None:
            return into / path.name
        if path.name in REPO_CONFIG_NAMES:
            break
    return None if explicit is not None else discover_repo_config(into)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _read_at(client: GitHubClient, repo: str, path: str, ref: str) -> bytes | None:
    """A file's bytes at ``ref`` (``GET /repos/{repo}/contents/{path}?ref=``); None when it does not exist."""
    from urllib.parse import quote

    from agent_evals.github.branch_store import RAW

    try:
        response = client.request(
            "GET", f"/repos/{repo}/contents/{quote(path)}", params={"ref": ref}, permission="contents: read",
            accept=RAW,
        )  # fmt: skip
    except GitHubError as exc:
        if exc.status == 404:
            return None
        raise GitHubError(
            f"cannot read {path} at the base commit {ref[:12]} to know the base policy: {exc}",
            status=exc.status,
        ) from exc
    return response.content


def gate_policy(
    own: Policy,
    record: CIRecord,
    record_path: Path,
    options: CIOptions,
    plan: CIPlan,
    settings: ActionsSettings,
    client: GitHubClient | None,
    found: BaselineResult | None,
    baseline_record: CIRecord | None,
    cwd: Path,
    env: Mapping[str, str],
    out_dir: Path,
    unavailable: str | None,
) -> GatePolicy:
    """Stamp the run's own policy in its record; on a pull request, floor it by the base side's (the
    baseline's recorded policy, else the base commit's files) and read the accept label when it loosened."""
    from agent_evals.ci.child_run import writing
    from agent_evals.gate.floor import loosenings
    from agent_evals.github.labels import read_acceptance

    stamp(record, own)
    writing("the run record", record_path, lambda: record.write(record_path))
    if plan.kind != "pull_request" or unavailable:
        return GatePolicy(policy=own, own=own, floored=own)
    baseline = baseline_suites(
        found.record if found is not None and options.baseline is None else None,
        baseline_record.summary if baseline_record is not None else None,
    )
    fetched: dict[Path | None, Path | None] = {}

    def base_files(config: Path | None) -> Path | None:
        if config not in fetched:  # each file read once
            fetched[config] = fetch_base_config(
                client if settings.token else None,  # no token: the defaults are the floor
                settings.repository,
                settings.event.base_sha,
                cwd=cwd,
                workspace=env.get("GITHUB_WORKSPACE"),
                config=config,
                into=out_dir / ("base-policy" if config is None else "base-config"),
            )
        return fetched[config]

    try:
        floored = floored_policy(
            own,
            [s.header["id"] for s in record.summary.suites],
            baseline,
            lambda: base_files(options.config),
            options.overrides,
        )
        base_files(None)  # the base commit's agent-evals.yaml: its prices: price both sides
    except GitHubError as exc:  # the base policy is unknown: no verdict (exit 3), never the PR's own
        return GatePolicy(policy=own, own=own, floored=own, unavailable=str(exc))
    gate = GatePolicy(
        policy=floored, own=own, floored=floored, base_prices=base_table(out_dir / "base-policy")
    )
    gate.loosened = loosenings(floored, run_groups(record.summary)) + prices_changed(gate.base_prices, cwd)
    if gate.loosened and not unavailable:  # the label lets the pull request's policy apply
        gate.acceptance = read_acceptance(
            client, settings.repository, settings.pr_number, options.accept_label
        )
        gate.policy = own if gate.acceptance.accepted else floored
    return gate
