"""A self-contained HTML page of plotly charts: plotly.js once, compressed, and each chart as JSON.

plotly.js (4.8 MB as the plotly package ships it) is inlined once per page, gzip-compressed and
base64-encoded (about 2 MB): the page opens from disk, a CI artifact or a mail attachment with no
network. A small loader script inflates it with the browser's ``DecompressionStream`` (Chrome 80,
Firefox 113, Safari 16.4 and later), then draws every chart from its JSON (``<script
type="application/json" class="chart-data">``) and links the zoom of the time charts (every chart
inside an element of class ``timeline``). When all charts are drawn, ``<body>`` gets
``data-charts="drawn"`` and ``document`` receives the ``esbench:charts-drawn`` event (the browser
tests wait for it). Used by :mod:`esbench.reporting.html`; any report page can use :func:`chart` and
:func:`page`.
"""

from __future__ import annotations

import base64
import functools
import gzip
import html

import plotly.graph_objects as go

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1400px;
padding:0 18px 40px;color:#222}
h1{font-size:22px;margin:18px 0 6px}h2{font-size:18px;margin:26px 0 6px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 4px}
dl.race{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:13px;margin:0}
dl.race dt{color:#666}dl.race dd{margin:0}
.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:6px 10px;font-size:13px;margin:4px 0}
.note{color:#666;font-size:12px}
.pair{display:grid;grid-template-columns:62% 38%;gap:0}
@media (max-width:1000px){.pair{grid-template-columns:100%}}
table.summary{border-collapse:collapse;font-size:12px;margin-top:6px}
table.summary th,table.summary td{border:1px solid #ddd;padding:2px 8px;text-align:right}
table.summary th{background:#f4f4f4}table.summary td.s{text-align:left}
table.key{font-size:15px}table.key td{padding:4px 12px}
td.better{color:#17803d;font-weight:600}td.worse{color:#c0262d;font-weight:600}
nav{font-size:13px}nav a{margin-right:10px}
"""

# Inflates plotly.js, draws the charts, links the time charts' zoom (zooming the time axis of one
# time chart zooms every time chart: they share the race time axis).
_LOADER_JS = """
(function(){
  function linkZoom(){
    var charts = Array.prototype.slice.call(document.querySelectorAll('.timeline .plotly-graph-div'));
    var busy = false;
    charts.forEach(function(g){
      g.on('plotly_relayout', function(ev){
        if (busy) return;
        var update = null;
        Object.keys(ev).forEach(function(k){
          var m = /^xaxis\\d*\\.(range\\[[01]\\]|range|autorange)$/.exec(k);
          if (!m) return;
          update = update || {};
          if (m[1] === 'autorange') update['xaxis.autorange'] = true;
          else if (m[1] === 'range') update['xaxis.range'] = ev[k];
          else update['xaxis.' + m[1]] = ev[k];
        });
        if (!update) return;
        busy = true;
        Promise.all(charts.filter(function(o){ return o !== g; }).map(function(o){
          return Plotly.relayout(o, update);
        })).then(function(){ busy = false; }, function(){ busy = false; });
      });
    });
  }
  function draw(){
    var specs = Array.prototype.slice.call(document.querySelectorAll('script.chart-data'));
    return Promise.all(specs.map(function(s){
      var fig = JSON.parse(s.textContent);
      var config = {displaylogo: false, responsive: true};
      var div = document.getElementById(s.getAttribute('data-for'));
      return Plotly.newPlot(div, fig.data, fig.layout, config);
    })).then(function(){
      linkZoom();
      document.body.setAttribute('data-charts', 'drawn');
      document.dispatchEvent(new Event('esbench:charts-drawn'));
    });
  }
  if (!('DecompressionStream' in window)) {
    document.getElementById('no-charts').style.display = 'block';
    return;
  }
  var packed = atob(document.getElementById('plotly-gz').textContent);
  var bytes = new Uint8Array(packed.length);
  for (var i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i);
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  new Response(stream).text().then(function(src){
    var s = document.createElement('script');
    s.text = src;
    document.head.appendChild(s);
    return draw();
  });
})();
"""


def esc(value: object) -> str:
    """``value`` as HTML text (quotes escaped too, so it can go into an attribute)."""
    return html.escape(str(value), quote=True)


@functools.cache
def plotly_packed() -> str:
    """plotly.js of the installed plotly package, gzip-compressed and base64-encoded (cached)."""
    from plotly.offline import get_plotlyjs

    # plotly ships no types: its return values are pinned here.
    js: str = get_plotlyjs()
    # mtime 0: the same plotly gives the same bytes, so a page is reproducible.
    return base64.b64encode(gzip.compress(js.encode("utf-8"), 9, mtime=0)).decode("ascii")


def chart(fig: go.Figure, div_id: str) -> str:
    """The ``<div>`` of one chart and its figure as JSON (drawn by the page's loader)."""
    height = fig.layout.height
    style = f' style="height:{int(height)}px"' if height else ""
    # "</" inside a JSON string would end the script element early; "<\\/" is the same JSON string.
    spec: str = fig.to_json(validate=False)
    spec = spec.replace("</", "<\\/")
    return (
        f'<div id="{esc(div_id)}" class="plotly-graph-div"{style}></div>'
        f'<script type="application/json" class="chart-data" data-for="{esc(div_id)}">{spec}</script>'
    )


def page(title: str, body: str) -> str:
    """A complete HTML document: ``title``, the page style, ``body`` (HTML), plotly.js and its loader."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
        '<div id="no-charts" class="warn" style="display:none">This browser cannot unpack the charts '
        "(it lacks DecompressionStream: Chrome 80, Firefox 113 or Safari 16.4 and later have it); the "
        "tables below are complete.</div>"
        f"{body}"
        f'<script type="text/plain" id="plotly-gz">{plotly_packed()}</script>'
        f"<script>{_LOADER_JS}</script></body></html>\n"
    )
