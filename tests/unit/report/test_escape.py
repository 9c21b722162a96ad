"""Untrusted strings come out of escape_untrusted as inert Markdown/HTML text."""

from __future__ import annotations

import re

import pytest

from agent_evals.report.escape import ZWJ, escape_code_block, escape_untrusted, terminal_text, truncate

# Things that must never appear verbatim in the escaped output of a hostile input.
HOSTILE = [
    ("pipe breaks a table cell", "a | b || c", ["|"]),
    ("newline ends a table row", "row1\nrow2\r\nrow3\rrow4", ["\n", "\r"]),
    ("unicode line separators", "a\u2028b\u2029c\x85d", ["\u2028", "\u2029", "\x85"]),
    ("closing details tag", "</details><details open>", ["<", ">"]),
    ("image tag", '<img src="http://evil.example/x.png" onerror=alert(1)>', ["<img", '"']),
    ("script tag", "<script>alert('x')</script>", ["<script", "'"]),
    ("html comment that swallows the rest", "<!-- ", ["<!--"]),
    ("markdown image", "![x](http://evil.example/pixel.png)", ["![", "](", "http://"]),
    ("markdown link", "[click](https://evil.example)", ["[click]", "https://"]),
    ("reference link definition", "[a]: http://x.example", ["[a]", "http://"]),
    ("code span", "``` rm -rf / ```", ["`"]),
    ("emphasis", "**bold** _it_ ~~gone~~", ["**", "_", "~~"]),
    ("math", "$\\color{red}{x}$", ["$", "\\"]),
    ("heading", "# Title", ["# "]),
    ("entity smuggles a pipe", "&#124; &lt;b&gt;", ["&#124; &lt;b"]),
]


@pytest.mark.parametrize(("label", "text", "forbidden"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_escape_untrusted__hostile_markup__is_neutralised(
    label: str, text: str, forbidden: list[str]
) -> None:
    out = escape_untrusted(text, limit=None)
    for token in forbidden:
        assert token not in out, f"{label}: {token!r} survived in {out!r}"
    # Only our own <br> may look like a tag.
    assert re.sub("<br>", "", out).count("<") == 0


NOTIFY = [
    ("channel mention", "@channel ping", "@channel"),
    ("user mention", "thanks @octocat!", "@octocat"),
    ("team mention", "cc @my-org/reviewers", "@my-org"),
    ("issue reference", "fixes #123", "#123"),
    ("cross-repo reference", "see org/repo#1", "repo#1"),
    ("GH reference", "GH-42 and gh-7", "GH-42"),
    ("bare url", "visit https://github.com/org/repo/issues/9", "https://"),
    ("www autolink", "www.example.com", "www."),
    ("email autolink", "me@example.com", "me@example"),
    ("mailto", "mailto:me@example.com", "mailto:"),
]


@pytest.mark.parametrize(("label", "text", "trigger"), NOTIFY, ids=[n[0] for n in NOTIFY])
def test_escape_untrusted__mentions_references_and_autolinks__are_broken_after_entity_decoding(
    label: str, text: str, trigger: str
) -> None:
    out = escape_untrusted(text, limit=None)
    # GitHub decodes entities before looking for mentions/references/links: check the decoded text.
    decoded = _decode_entities(out)
    assert trigger not in decoded, f"{label}: {trigger!r} still present in {decoded!r}"
    # ...while the visible characters are unchanged.
    assert decoded.replace(ZWJ, "") == text


def _decode_entities(text: str) -> str:
    import html

    return html.unescape(text)


def test_escape_untrusted__plain_text__reads_the_same_after_rendering() -> None:
    text = "Turned on the kitchen light (brightness 80%) - done: ok."
    assert escape_untrusted(text) == text


def test_escape_untrusted__newlines__become_br_or_chosen_separator() -> None:
    assert escape_untrusted("a\nb") == "a<br>b"
    assert escape_untrusted("a\r\nb", line_break=" ") == "a b"


def test_escape_untrusted__control_and_bidi_characters__are_removed() -> None:
    assert escape_untrusted("a\x00b\x1bc\u202ed\u2066e") == "abcde"


def test_escape_untrusted__lone_surrogate__is_replaced_and_output_encodes() -> None:
    out = escape_untrusted("ok\ud800!")
    out.encode("utf-8")
    assert out.startswith("ok")


@pytest.mark.parametrize(("value", "expected"), [(None, ""), (42, "42"), (1.5, "1.5"), (True, "True")])
def test_escape_untrusted__non_strings__are_rendered_with_str(value: object, expected: str) -> None:
    assert escape_untrusted(value) == expected


def test_escape_untrusted__200kb_value__is_truncated_with_visible_marker() -> None:
    text = "x" * 200_000
    out = escape_untrusted(text, limit=100)
    assert out.startswith("x" * 100)
    assert "truncated 199,900 chars" in out
    assert len(out) < 200


def test_escape_untrusted__value_at_limit__is_kept_whole() -> None:
    assert escape_untrusted("abc", limit=3) == "abc"


def test_escape_untrusted__truncation_happens_before_escaping__so_no_entity_is_cut() -> None:
    out = escape_untrusted("|" * 10, limit=3)
    assert out.startswith("&#124;&#124;&#124; ")


def test_truncate__limit_none__keeps_everything() -> None:
    assert truncate("abcdef", None) == "abcdef"


def test_escape_code_block__keeps_lines_and_cannot_close_pre() -> None:
    out = escape_code_block("line 1\n</pre></details>\n@here", limit=None)
    assert out.split("\n")[0] == "line 1"
    assert "</pre>" not in out and "</details>" not in out
    assert "@here" not in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("a\x1b[31mred", "a[31mred"),
        ("nul\x00bel\x07", "nulbel"),
        ("abc\u202edcba \u2066x\u2069", "abcdcba x"),
        ("two\nlines\ttab", "two lines tab"),
        ("s" + chr(0xD800), "s\ufffd"),
        (None, ""),
        (42, "42"),
    ],
    ids=[
        "plain",
        "ansi-escape",
        "c0-controls",
        "bidi-controls",
        "line-breaks-and-tab",
        "lone-surrogate",
        "none",
        "int",
    ],
)
def test_terminal_text__untrusted_text__inert_on_one_line(text: object, expected: str) -> None:
    assert terminal_text(text) == expected
