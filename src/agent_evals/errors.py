"""The exception tree of agent-evals, and the exit code each branch maps to.

    AgentEvalsError                 base; exit code 3 unless a subclass says otherwise
    ├── UsageError                  bad configuration or input the user can fix; exit code 2
    │   ├── BenchmarkFileError      a malformed benchmark YAML (file:line:col and key path)
    │   ├── PolicyError             an invalid gate policy value (names the key)
    │   ├── UnknownScorer           a scorer/checker name not in the registry (did-you-mean)
    │   ├── EvalFileError           an eval file that fails to import
    │   ├── AgentLoadError          an agent `module:attr` that cannot be imported or used
    │   ├── RunRecordError          an unreadable or schema-invalid run record
    │   └── MissingDependency       an optional extra is not installed (names the pip command)
    ├── OutputWriteError            a file that must be written cannot be (full disk, no permission)
    ├── GitHubError                 the GitHub API answered with an error we cannot work around
    │   ├── GitHubPermissionError   a 403/404 that means a token permission is missing
    │   └── GitHubUnavailableError  no usable answer (5xx, network, rate limit): a re-run may succeed
    ├── UnsafeArchiveError          a downloaded artifact that is not safe to extract
    └── CacheMiss                   --cache replay has no entry for a model call (errors that trial)

Not an exception: a real SIGINT or SIGTERM during ``run`` or ``ci`` ends the process within 5 s with
exit code 130 (:data:`EXIT_SIGINT`) or 143 (:data:`EXIT_SIGTERM`), 128 plus the signal's number, after
the cases finished so far are written (``complete: false``).

    code  meaning
    0     passed (warnings allowed)
    1     the gate failed
    2     usage or configuration error (UsageError and its subclasses)
    3     infrastructure or internal error (any other AgentEvalsError, a bug)
    130   interrupted by SIGINT (Ctrl-C); partial record written
    143   terminated by SIGTERM (an Actions cancellation); partial record written

Library entry points that take Python objects (``run_eval_async`` and friends) raise plain
``ValueError``/``TypeError`` for wrong arguments, as Python code expects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_SIGINT = 130
EXIT_SIGTERM = 143

EXIT_CODES_HELP = (
    "Exit codes: 0 passed (warnings allowed); 1 gate failed (regression, floor or error budget); "
    "2 usage or configuration error (bad YAML, flags, eval file or agent import, unreadable record); "
    "3 infrastructure or internal error (also: an incomplete candidate run, a run that died without a "
    "record); 130/143 interrupted by SIGINT/SIGTERM (the process ends within 5 s; partial results "
    "written, marked incomplete)."
)


class AgentEvalsError(Exception):
    """Base class of every error agent-evals raises on purpose."""

    exit_code: int = EXIT_INTERNAL


class UsageError(AgentEvalsError):
    """Something the user can fix: a file, a flag, a configuration value."""

    exit_code = EXIT_USAGE


MAX_LISTED_PROBLEMS = 50
"""How many problems of one file a message lists; beyond it, a count of the rest."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the known name closest to ``name``, or ``""`` when none is close."""
    import difflib  # only when there is something to suggest

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


class BenchmarkFileError(UsageError):
    """A benchmark YAML file that cannot be loaded; the message names file:line:col and key path.

    ``further`` are the file's other problems found in the same pass: the message lists each on a line
    of its own (up to :data:`MAX_LISTED_PROBLEMS` in all, then how many more there are).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key_path: str | None = None,
        further: Sequence[BenchmarkFileError] = (),
    ) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.key_path = key_path
        self.reason = message
        self.further = [one for problem in further for one in problem.problems]
        where = ""
        if file is not None:
            where = file
            if line is not None:
                where += f":{line}"
                if column is not None:
                    where += f":{column}"
            where += ": "
        key = f"{key_path}: " if key_path else ""
        self.located = f"{where}{key}{message}"
        lines = [self.located, *(f"  {p.located}" for p in self.further[: MAX_LISTED_PROBLEMS - 1])]
        if (hidden := len(self.further) - (MAX_LISTED_PROBLEMS - 1)) > 0:
            lines.append(f"  ... and {hidden} more problem(s) in this file: fix these, then validate again")
        super().__init__("\n".join(lines))

    @property
    def problems(self) -> list[BenchmarkFileError]:
        """This problem and the file's further ones, each on its own (none with further problems)."""
        first = BenchmarkFileError(
            self.reason, file=self.file, line=self.line, column=self.column, key_path=self.key_path
        )
        return [first, *self.further] if self.further else [self]

    @classmethod
    def of_all(cls, problems: Sequence[BenchmarkFileError]) -> BenchmarkFileError:
        """One error listing every problem of ``problems`` (the first leads the message)."""
        first, *rest = problems
        if not rest:
            return first
        return cls(
            first.reason,
            file=first.file,
            line=first.line,
            column=first.column,
            key_path=first.key_path,
            further=[*first.further, *rest],
        )


class PolicyError(UsageError):
    """An invalid gate policy value; the message names the offending key."""


class UnknownScorer(UsageError):
    """A scorer or success-checker name that is not registered."""


class EvalFileError(UsageError):
    """An eval file that cannot be imported."""


class AgentLoadError(UsageError):
    """An agent reference that cannot be imported or does not fit the agent contract."""


class RunRecordError(UsageError):
    """A run record that cannot be read or does not match the schema."""


class MissingDependency(UsageError, ImportError):
    """An optional extra is needed; the message names the ``pip install`` command."""

    def __init__(self, package: str, extra: str, feature: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"{feature} needs the '{package}' package, which is not installed. "
            f"Install it with: pip install 'agent-evals[{extra}]'"
        )


class GitHubError(AgentEvalsError):
    """The GitHub API failed in a way the caller cannot work around."""

    def __init__(self, message: str, *, status: int | None = None, endpoint: str | None = None) -> None:
        self.status = status
        self.endpoint = endpoint
        super().__init__(message)


class GitHubPermissionError(GitHubError):
    """The token lacks a permission the call needs; the message names it."""


class GitHubUnavailableError(GitHubError):
    """GitHub gave no usable answer (5xx or a network error after retries, a rate limit that did not
    reset in time, a download cut off): nothing is known about what was asked; a re-run may succeed."""


class UnsafeArchiveError(AgentEvalsError):
    """A downloaded archive that would escape its folder, hold links, or expand too far."""


class OutputWriteError(AgentEvalsError):
    """A file agent-evals must write (record, report, job summary, step outputs) cannot be; exit 3."""


class CacheMiss(AgentEvalsError):
    """``--cache replay`` has no recorded response for a model call: the call is refused, never made
    live, and the trial that made it is errored."""
