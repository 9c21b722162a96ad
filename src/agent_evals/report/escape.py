"""Neutralise untrusted strings (agent output, case names, scorer notes) for Markdown, HTML and the terminal.

The output of :func:`escape_untrusted` is inert text in three readers at once:

* GitHub-flavoured Markdown, including inside a table cell: no pipe or line break can end a cell,
  no emphasis, code span, link, image, math or heading can start
  (https://github.github.com/gfm/#tables-extension-, #backslash-escapes, #entity-and-numeric-character-references);
* HTML: ``<``, ``>``, ``&`` and quotes are entities, so no tag (``</details>``, ``<img>``, ``<script>``)
  can open or close;
* GitHub's post-processing, which works on the rendered *text* (entities already decoded): @mentions,
  ``#123`` / ``GH-1`` / ``org/repo#1`` references and bare-URL autolinks are broken with an invisible
  zero-width joiner, because an entity such as ``&#64;`` would be decoded back to ``@`` before GitHub
  looks for mentions.
"""

from __future__ import annotations

import re

from agent_evals.record.text import clean_text as clean_text  # the record's one surrogate rule, re-exported

ZWJ = "\u200d"
"""Zero-width joiner inserted to break mentions, references and autolinks without visible change."""

DEFAULT_LIMIT = 300
"""Default maximum number of characters kept from an untrusted string."""

TRUNCATION_MARKER = " … [truncated {dropped:,} chars]"
"""Visible marker appended to a truncated value."""

# One entity per Markdown/HTML-active ASCII character. Numeric references are used because they
# are inert both as Markdown (never delimiters) and as HTML.
_ENTITIES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&#39;",
    "|": "&#124;",
    "`": "&#96;",
    "\\": "&#92;",
    "*": "&#42;",
    "_": "&#95;",
    "~": "&#126;",
    "[": "&#91;",
    "]": "&#93;",
    "$": "&#36;",
    "#": "&#35;",
    "!": "&#33;",
}

_LINE_BREAKS = re.compile("\r\n|[\n\r\u0085\u2028\u2029\x0b\x0c]")
# C0/C1 controls (except tab, handled as a space) and bidi overrides that can disguise text
# ("Trojan Source"); lone surrogates are handled separately.
_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]")
_ACTIVE = re.compile("[&<>\"'|`\\\\*_~\\[\\]$#!]")
# Text GitHub turns into a link or a notification after rendering.
_MENTION = re.compile(r"@(?=[A-Za-z0-9_])")
_HASH_REF = re.compile(r"&#35;(?=[A-Za-z0-9])")
_GH_REF = re.compile(r"\b(GH)(?=-\d)", re.IGNORECASE)
# GFM's extended autolinks: scheme://..., www. and mailto:/xmpp: (https://github.github.com/gfm/#autolinks-extension-).
_SCHEME = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]{1,31})(?=://)|\b(mailto|xmpp)(?=:)", re.IGNORECASE)
_WWW = re.compile(r"\b(www)(?=\.)", re.IGNORECASE)


def truncate(text: str, limit: int | None) -> str:
    """Cut ``text`` to ``limit`` characters, appending a visible marker that says how much was dropped."""
    if limit is None or len(text) <= limit:
        return text
    keep = max(limit, 0)
    return text[:keep] + TRUNCATION_MARKER.format(dropped=len(text) - keep)


def strip_controls(text: str) -> str:
    """Drop C0/C1 control characters (the ESC of ANSI colour codes too) and bidi overrides, as the
    Markdown escaping does; tab and line breaks stay."""
    return _INVISIBLE.sub("", text)


def terminal_text(text: object) -> str:
    """Untrusted text made inert on a terminal, on one line: lone surrogates as U+FFFD, line breaks and
    tabs as spaces, control characters (the ESC of ANSI escape sequences, NUL, BEL) and bidi controls
    dropped, so nothing in it can style, move or rewrite what the terminal shows."""
    raw = "" if text is None else text if isinstance(text, str) else str(text)
    return _INVISIBLE.sub("", _LINE_BREAKS.sub(" ", clean_text(raw)).replace("\t", " "))


def escape_untrusted(text: object, limit: int | None = DEFAULT_LIMIT, *, line_break: str = "<br>") -> str:
    """Return ``text`` as inert, single-line Markdown/HTML, truncated to ``limit`` characters.

    ``None`` becomes an empty string and other objects their ``str()``. Line breaks become
    ``line_break`` (``<br>``, which GitHub renders inside a table cell; pass ``" "`` for a plain space).
    ``limit`` counts characters of the original text; ``None`` keeps everything.
    """
    if text is None:
        return ""
    raw = text if isinstance(text, str) else str(text)
    raw = clean_text(raw)
    raw = truncate(raw, limit)
    raw = raw.replace("\t", " ")
    raw = _INVISIBLE.sub("", raw)
    lines = _LINE_BREAKS.split(raw)
    return line_break.join(_escape_line(line) for line in lines)


def _escape_line(line: str) -> str:
    # Break autolinks and references on the raw text first (the patterns need the plain characters),
    # then turn every active character into an entity.
    line = _SCHEME.sub(lambda m: m.group(0) + ZWJ, line)
    line = _WWW.sub(lambda m: m.group(1) + ZWJ, line)
    line = _GH_REF.sub(lambda m: m.group(1) + ZWJ, line)
    line = _ACTIVE.sub(lambda m: _ENTITIES[m.group(0)], line)
    line = _MENTION.sub("@" + ZWJ, line)
    line = _HASH_REF.sub("&#35;" + ZWJ, line)
    return line


def escape_code_block(text: object, limit: int | None = DEFAULT_LIMIT) -> str:
    """Return ``text`` for display inside an HTML ``<pre>`` block: entity-escaped, line breaks kept.

    Mentions, references and autolinks are broken as in :func:`escape_untrusted`; nothing inside
    can close the surrounding ``<pre>`` or ``<details>`` element.
    """
    if text is None:
        return ""
    raw = text if isinstance(text, str) else str(text)
    raw = clean_text(raw)
    raw = truncate(raw, limit)
    raw = _INVISIBLE.sub("", raw)
    return "\n".join(_escape_line(line) for line in _LINE_BREAKS.split(raw))
