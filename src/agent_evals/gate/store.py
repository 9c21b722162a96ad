"""Where ``write_record`` was first documented; it lives in ``agent_evals.record.store`` now."""

from agent_evals.record.store import write_record

__all__ = ["write_record"]
