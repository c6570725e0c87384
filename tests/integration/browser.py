"""Headless Chromium for the HTML report tests (not a test module).

Opens a page the way a person would (file:// URL, no network), lets its scripts run, and returns the
DOM as the browser left it, from which :func:`drawn_lines` reads the SVG paths plotly drew in each
chart. Chromium is Debian's package ``chromium`` (.ci/run installs it).
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

_BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# Virtual time lets the page's scripts (plotly drawing every chart) finish before the DOM is dumped;
# the resolver rule takes the network away, so a page that needed it would show empty charts.
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--virtual-time-budget=20000",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)


def chromium() -> str:
    """Path of the Chromium executable; fails the test (not a skip) when none is installed."""
    for name in _BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(
        "No Chromium found: the HTML report tests need Debian's 'chromium' package (.ci/run installs it)."
    )


def dump_dom(page: Path, *, timeout: float = 120, window: tuple[int, int] = (1400, 1000)) -> str:
    """The DOM of ``page`` after its scripts ran (``chromium --dump-dom``) in a ``window`` px window."""
    result = subprocess.run(
        [
            chromium(),
            *_FLAGS,
            f"--window-size={window[0]},{window[1]}",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def screenshot(page: Path, out: Path, *, width: int = 1400, height: int = 1800, timeout: float = 120) -> None:
    """A PNG screenshot of the top ``width`` x ``height`` px of ``page``."""
    result = subprocess.run(
        [
            chromium(),
            *_FLAGS,
            f"--window-size={width},{height}",
            f"--screenshot={out}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0 and out.is_file(), result.stderr[-2000:]


@dataclass(frozen=True)
class DrawnLine:
    """One ``<path class="js-line">`` plotly drew: its points in px (SVG coordinates)."""

    points: tuple[tuple[float, float], ...]

    @property
    def distinct_y(self) -> int:
        return len({round(y, 1) for _, y in self.points})


_CHART = re.compile(r'<div id="(chart-[A-Za-z0-9-]+)"')
_LINE = re.compile(r'<path class="js-line" d="([^"]*)"')
_POINT = re.compile(r"[ML]\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)")


def drawn_lines(dom: str) -> dict[str, list[DrawnLine]]:
    """Chart div id -> the lines drawn inside it (charts with no drawn line map to ``[]``)."""
    starts = [(m.start(), m.group(1)) for m in _CHART.finditer(dom)]
    out: dict[str, list[DrawnLine]] = {}
    for i, (start, chart) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(dom)
        lines = []
        for d in _LINE.findall(dom[start:end]):
            if "h" in d:
                continue  # a legend sample ("M5,0h30"): plotly draws data with absolute M/L only
            points = tuple((float(x), float(y)) for x, y in _POINT.findall(d))
            if points:
                lines.append(DrawnLine(points))
        out[chart] = lines
    return out


def png_colored_pixels(data: bytes) -> tuple[int, int, int]:
    """``(width, height, n)`` of an 8-bit RGB/RGBA PNG, ``n`` = pixels with a strong colour
    (max - min channel > 60): plotly's data lines are coloured, its axes, grid and text are grey."""
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6), f"unsupported PNG (depth {depth}, colour type {color})"
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colored = 0
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        for x in range(0, stride, bpp):
            r, g, bl = line[x], line[x + 1], line[x + 2]
            if max(r, g, bl) - min(r, g, bl) > 60:
                colored += 1
        prev = line
    return width, height, colored


# Runs once the report drew its charts (the page's loader sets data-charts and fires the event).
_PROBE = """<script>(function () {
  function probe() {
    var box = function (el) {
      var r = el.getBoundingClientRect();
      return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    };
    var charts = Array.prototype.map.call(document.querySelectorAll('.plotly-graph-div'), function (div) {
      var titles = [], ticks = [];
      div.querySelectorAll('text').forEach(function (t) {
        var c = t.getAttribute('class') || '';
        if (/^[xy]\\d*title$/.test(c)) titles.push(t.textContent);
      });
      div.querySelectorAll('[class$="tick"] > text').forEach(function (t) { ticks.push(t.textContent); });
      return {
        id: div.id,
        // plotly draws legend n as <g class="legendN"> ("legend" for the first)
        legends: Array.prototype.filter.call(div.querySelectorAll('g'), function (g) {
          return /^legend\\d*$/.test(g.getAttribute('class') || '');
        }).map(function (g) {
          return {box: box(g), entries: g.querySelectorAll('g.traces').length};
        }),
        titles: titles,
        ticks: ticks,
        traces: div.data.map(function (t) {
          return {name: t.name, color: t.line && t.line.color, x: t.x, y: t.y, showlegend: t.showlegend,
                  yaxis: t.yaxis || 'y'};
        }),
        xrange: div._fullLayout.xaxis.range
      };
    });
    document.body.setAttribute('data-probe', JSON.stringify(charts));
  }
  if (document.body.getAttribute('data-charts') === 'drawn') probe();
  else document.addEventListener('esbench:charts-drawn', function () { setTimeout(probe, 200); });
})();</script></body>"""


@dataclass(frozen=True)
class ChartProbe:
    """What one chart of a report looks like in the browser once drawn.

    Attributes:
        id: the chart's div id (``chart-overview``, ``chart-telemetry``, ``chart-task-0-time``...).
        legends: ``{"box": {"left", "top", "right", "bottom"}, "entries": n}`` per legend (px;
            plotly's ``g.legend``, ``g.legend2``...).
        titles: the text of every axis title.
        ticks: the text of every axis tick label.
        traces: ``{"name", "color", "x", "y", "showlegend", "yaxis"}`` per drawn trace.
        xrange: the drawn range of the chart's first x axis.
    """

    id: str
    legends: list[dict[str, object]]
    titles: list[str]
    ticks: list[str]
    traces: list[dict[str, object]]
    xrange: list[float]


def probe_charts(page: Path, out: Path) -> dict[str, ChartProbe]:
    """Chart id -> :class:`ChartProbe` of ``page`` drawn in Chromium (1400 x 1000 px window); the page
    is copied to ``out`` with the probe script added."""
    import html as html_lib
    import json

    out.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE), encoding="utf-8")
    found = re.search(r'data-probe="([^"]*)"', dump_dom(out))
    assert found is not None, "the charts were not drawn (no esbench:charts-drawn event)"
    return {c["id"]: ChartProbe(**c) for c in json.loads(html_lib.unescape(found.group(1)))}


def boxes_intersect(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two ``getBoundingClientRect`` boxes overlap (touching edges do not)."""
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )
