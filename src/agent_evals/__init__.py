"""agent-evals: evaluate AI agents and gate regressions in CI."""

__version__ = "0.1.0"
