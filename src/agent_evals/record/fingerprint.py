"""The fingerprint of a suite's run: what makes two runs of it comparable, as a short digest."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def fingerprint_of(
    case_ids: list[str], trial_counts: list[int], config: dict[str, Any], agent: list[str | None]
) -> str:
    """``record.model.fingerprint`` from its parts (a shard stamps the whole suite's, not its slice's)."""
    payload = {
        "cases": sorted(case_ids),
        "config": config,
        "agent": agent,
        "trials": sorted(set(trial_counts)),
    }
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
    return digest[:16]
