"""The HTML report renders offline in a real headless browser (Debian's chromium), charts included."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from agent_evals.report.html import render_html
from golden.synthetic import CaseSpec, SuiteSpec, compare, pair

CHROMIUM = Path("/usr/bin/chromium")
KEEP_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "report.png"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
    ),
]


def _comparison():  # type: ignore[no-untyped-def]
    # 250 cases over five capabilities; doors regress hard, climate a little, media improves.
    def base(i: int) -> list[bool]:
        return [i % 17 != 0]

    def cand(i: int) -> list[bool]:
        group = i % 5
        if group == 2:  # doors
            return [i % 17 != 0 and i % 3 != 0]
        if group == 1:  # climate
            return [i % 17 != 0 and i % 11 != 0]
        if group == 3:  # media
            return [True]
        return base(i)

    b, c = pair(250, base=base, cand=cand, output=lambda i: f"Opened the front door (case {i})")
    c.cases.append(CaseSpec("scenes/new-party-mode", "scenes", [True]))
    return compare([b, SuiteSpec("retired-v0", [CaseSpec("lights/x", "lights", [True])])], [c])


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA PNG into rows of raw pixel bytes (enough PNG for a screenshot)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"unexpected PNG format depth={depth} color={color}"
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for x in range(channels, stride):
                line[x] = (line[x] + line[x - channels]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev, strict=True))
        elif kind == 3:
            for x in range(stride):
                left = line[x - channels] if x >= channels else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 0xFF
        elif kind == 4:
            for x in range(stride):
                a = line[x - channels] if x >= channels else 0
                b = prev[x]
                c = prev[x - channels] if x >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, channels, rows


def _colors(channels: int, rows: list[bytes]) -> set[tuple[int, int, int]]:
    seen: set[tuple[int, int, int]] = set()
    for row in rows[::2]:
        for x in range(0, len(row), channels * 2):
            seen.add((row[x], row[x + 1], row[x + 2]))
    return seen


def _near(colors: set[tuple[int, int, int]], hex_color: str, tolerance: int = 12) -> bool:
    target = tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return any(all(abs(c[i] - target[i]) <= tolerance for i in range(3)) for c in colors)


def test_html_report__headless_chromium_screenshot__shows_the_charts(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(_comparison(), env={}), encoding="utf-8")
    shot = tmp_path / "report.png"
    profile = tmp_path / "profile"
    env = {**os.environ, "HOME": str(tmp_path)}
    result = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--screenshot={shot}",
            "--window-size=1200,1600",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert shot.exists(), f"chromium wrote no screenshot (exit {result.returncode}): {result.stderr[-2000:]}"
    data = shot.read_bytes()
    assert len(data) > 30_000, f"screenshot is suspiciously small ({len(data)} bytes)"
    width, channels, rows = _png_pixels(data)
    assert width == 1200
    colors = _colors(channels, rows)
    assert len(colors) > 50, "the screenshot is nearly uniform"
    # The pass-rate bars: baseline grey, candidate blue, drops red; the flip matrix's green cells.
    for name, hex_color in (
        ("baseline bar", "#9aa5b1"),
        ("candidate bar", "#2f6fde"),
        ("worse", "#d1453b"),
    ):
        assert _near(colors, hex_color), (
            f"no {name} colour {hex_color} in the screenshot: the charts did not render"
        )
    if os.environ.get("KEEP_REPORT_SCREENSHOT") == "1":
        KEEP_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, KEEP_SCREENSHOT)


def _screenshot(page: Path, tmp_path: Path, size: str = "1200,1600") -> bytes:
    shot = tmp_path / f"{page.stem}.png"
    result = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            f"--window-size={size}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
        check=False,
    )
    assert shot.exists(), f"chromium wrote no screenshot (exit {result.returncode}): {result.stderr[-2000:]}"
    return shot.read_bytes()


def test_html_report_with_history__headless_chromium_draws_the_trend_chart(tmp_path: Path) -> None:
    import re

    from agent_evals.gate.compare import compare_runs
    from agent_evals.gate.policy import Policy
    from golden.synthetic import record

    runs = []
    for day, good in enumerate([40, 38, 39, 40, 30]):
        suite, _ = pair(40, base=lambda i, good=good: [i < good])
        runs.append(
            record([suite], sha=f"{day + 1}" * 40, run_id=str(day), started_at=f"2026-11-1{day}T08:00:00Z")
        )
    text = render_html(compare_runs(runs[3], runs[4], Policy(), history=runs[:3]), env={})
    chart = re.search(r'<svg[^>]*aria-label="Pass rate over the baselines".*?</svg>', text, re.S)
    assert chart is not None, "no trend chart in the report"
    # The chart alone on the report's own page head (same CSP): what chromium draws is the trend only.
    head = text[: text.index("<body")]
    page = tmp_path / "trend.html"
    page.write_text(f"{head}<body>{chart.group(0)}</body></html>", encoding="utf-8")
    width, channels, rows = _png_pixels(_screenshot(page, tmp_path, "700,300"))
    assert width == 700
    colors = _colors(channels, rows)
    assert _near(colors, "#9aa5b1"), "the baselines' line and dots were not drawn"
    assert _near(colors, "#d1453b"), "the candidate's red dot (below the baseline) was not drawn"


def test_html_report__loads_nothing_from_the_network() -> None:
    text = render_html(_comparison(), env={})
    assert "default-src 'none'" in text
    for needle in ("<script", "<link", 'src="http', "url(http", "@import"):
        assert needle not in text, needle
