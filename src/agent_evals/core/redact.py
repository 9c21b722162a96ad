"""Keep secrets out of reports and run records: replace the values of secret-looking env variables."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote

MASK = "***"
"""What a secret value is replaced with."""

SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
"""Environment variable name endings whose values are treated as secrets."""

MIN_SECRET_LENGTH = 4
"""Values shorter than this are ignored: masking ``1`` or ``yes`` everywhere would garble reports."""


def is_secret_name(name: str, extra_names: Iterable[str] = ()) -> bool:
    """Whether the environment variable ``name`` holds a secret (suffix rule or listed explicitly)."""
    upper = name.upper()
    return upper.endswith(SECRET_SUFFIXES) or upper in {n.upper() for n in extra_names}


def secret_values(env: Mapping[str, str] | None = None, extra_names: Iterable[str] = ()) -> list[str]:
    """The secret values found in ``env`` (default ``os.environ``), longest first, without duplicates."""
    source = os.environ if env is None else env
    extra = [n.upper() for n in extra_names]
    found: set[str] = set()
    for name, value in source.items():
        if not value or len(value) < MIN_SECRET_LENGTH:
            continue
        if is_secret_name(name, extra):
            found.add(value)
            # The same secret as it would appear inside JSON, a URL or HTML.
            for variant in (json.dumps(value)[1:-1], quote(value, safe=""), html.escape(value)):
                if len(variant) >= MIN_SECRET_LENGTH:
                    found.add(variant)
    return sorted(found, key=lambda v: (-len(v), v))


class Redactor:
    """A reusable redaction pass built once from an environment (cheap to apply to many strings)."""

    def __init__(self, values: Iterable[str]) -> None:
        """Build a redactor that masks every string in ``values``."""
        ordered = sorted({v for v in values if len(v) >= MIN_SECRET_LENGTH}, key=lambda v: (-len(v), v))
        self._pattern = re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, extra_names: Iterable[str] = ()) -> Redactor:
        """Build a redactor from the secret-looking variables of ``env`` (default ``os.environ``)."""
        return cls(secret_values(env, extra_names))

    @property
    def active(self) -> bool:
        """Whether there is anything to redact."""
        return self._pattern is not None

    def __call__(self, text: str) -> str:
        """Return ``text`` with every secret value replaced by ``***``."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)


def redact(text: str, env: Mapping[str, str] | None = None, extra_names: Iterable[str] = ()) -> str:
    """Replace values of env variables named ``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``
    (and any name in ``extra_names``) with ``***``; values shorter than 4 characters are left alone.

    ``env`` defaults to ``os.environ``. To redact many strings, build a :class:`Redactor` once.
    """
    return Redactor.from_env(env, extra_names)(text)
