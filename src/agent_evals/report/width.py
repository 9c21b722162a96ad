"""Display width of terminal text (wide characters, emoji, ANSI styles) and fitting lines to a width."""

from __future__ import annotations

import re
import unicodedata

TERMINAL_WIDTH = 80
"""Columns every line of the terminal views fits in."""

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_EMOJI_PRESENTATION = "\ufe0f"


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: ANSI styles take none, wide (CJK, emoji) characters two,
    combining marks none; a character followed by the emoji selector (``⚠️``) is drawn two wide."""
    plain = _ANSI.sub("", text)
    total = 0
    previous = 0
    for ch in plain:
        if ch == _EMOJI_PRESENTATION:
            total += 2 - previous if previous == 1 else 0
            previous = 2
            continue
        previous = _char_width(ch)
        total += previous
    return total


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns with a trailing ``…`` when it is longer (no ANSI styles inside)."""
    if display_width(text) <= width:
        return text
    out: list[str] = []
    used = 0
    for ch in text:
        w = display_width(ch) if ch != _EMOJI_PRESENTATION else 0
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out).rstrip() + "…"


def fit_middle(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns in the middle (``benchmarks/ho…/home.yaml``): both ends kept."""
    if display_width(text) <= width:
        return text
    head = fit(text, (width + 1) // 2)  # ends in the ellipsis
    room = width - display_width(head)
    tail = ""
    for ch in reversed(text):
        if display_width(ch + tail) > room:
            break
        tail = ch + tail
    return head + tail


def _take(word: str, width: int) -> tuple[str, str]:
    """The longest head of ``word`` within ``width`` columns (at least one character), and the rest."""
    used = 0
    for index, ch in enumerate(word):
        used += display_width(ch)
        if used > width and index:
            return word[:index], word[index:]
    return word, ""


def wrap(
    text: str,
    width: int = TERMINAL_WIDTH,
    *,
    indent: str = "",
    hanging: str | None = None,
    max_lines: int | None = None,
) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` columns: the first starts with
    ``indent``, the rest with ``hanging`` (default: ``indent``); a word longer than a line is split.
    With ``max_lines``, the last kept line ends in ``…`` when text was left out."""
    rest_indent = indent if hanging is None else hanging
    lines: list[str] = []
    current = indent
    fresh = True  # nothing but the indent on the current line
    for word in text.split():
        lead = current if fresh else current + " "
        if display_width(lead + word) <= width:
            current, fresh = lead + word, False
            continue
        if not fresh:
            lines.append(current)
            current, fresh = rest_indent, True
        head, word = _take(word, max(width - display_width(current), 1))
        while word:
            lines.append(current + head)
            current = rest_indent
            head, word = _take(word, max(width - display_width(current), 1))
        current, fresh = current + head, False
    if not fresh or not lines:
        lines.append(current)
    if max_lines is not None and len(lines) > max_lines:
        kept = lines[:max_lines]
        kept[-1] = fit(kept[-1] + " …", width) if display_width(kept[-1] + " …") > width else kept[-1] + " …"
        return kept
    return lines
