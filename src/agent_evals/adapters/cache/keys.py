"""The response cache's request digests: SHA-256 over length-prefixed parts."""

from __future__ import annotations

import hashlib


def request_digest(*parts: bytes | str) -> str:
    """SHA-256 over ``parts`` (each length-prefixed, so no two part lists collide)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()
