"""Run-record schema ids: the one this version writes and every one it reads (no imports, cheap to load)."""

SCHEMA_ID = "agent-evals/run@1"
"""The schema id written by this version."""

READABLE_SCHEMAS = frozenset({"agent-evals/run@1"})
"""Every schema id this version can read (grows as versions ship; never shrinks)."""
