"""Summary of a side-by-side benchmark: medians over repetitions, ratios, resource use.

Shapes (also the JSON file's):

- ``rows``: one per (case, task, metric): ``{"case", "task", "metric", "unit", "higher_is_better",
  "esbench", "rally", "wrk", "vegeta"`` (median over the successful repetitions, or null), ``"n"``
  (successful runs per tool), ``"spread"`` (``{tool: [min, max]}``), ``"esbench/rally"``,
  ``"esbench/wrk"``, ``"esbench/vegeta"``, ``"rally/wrk"`` (ratios of the medians, or null)}``;
- ``resources``: one per (case, tool): medians of ``wall_s``, ``cpu_s``, ``peak_rss_mib``
  (sum over the tool's process tree), ``peak_pss_mib``, ``peak_anon_mib``, ``requests`` (requests
  per run, source(s) in ``requests_source``: ``server`` / ``tool``, see ``cost.py``) and
  ``cpu_s_per_1k_requests`` (median of the runs' CPU seconds per 1,000 requests), and the runs ok
  / total.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from sidebyside import cost
from sidebyside.cases import Case
from sidebyside.tools import ToolRun

TOOL_LABELS = {"esbench": "esbench", "rally": "Rally", "wrk": "wrk", "vegeta": "vegeta"}
#: The tools of the main table's columns, in order.
TABLE_TOOLS: tuple[str, ...] = ("esbench", "rally", "wrk", "vegeta")
#: Ratios of the main table: (numerator tool, denominator tool).
RATIOS: tuple[tuple[str, str], ...] = (
    ("esbench", "rally"),
    ("esbench", "wrk"),
    ("esbench", "vegeta"),
    ("rally", "wrk"),
)
METRIC_LABELS = {
    "throughput": "median throughput",
    "service_time_p50_ms": "p50 service time",
    "service_time_p90_ms": "p90 service time",
    "latency_p50_ms": "p50 latency",
    "error_rate_pct": "error rate",
}

RESOURCE_NOTE = (
    "CPU s: user + system CPU of the tool's whole process tree over its whole run (start-up, warmup, "
    "measurement, report; vegeta: attack + report). requests: every request sent in that same run "
    "(warmup and administrative calls included; a bulk request counts once), counted by the stub's "
    "nginx on the stub cases, else by the tool (esbench: measurement + warmup samples of results.json; "
    "wrk, vegeta: their output; Rally reports none). CPU s / 1k req = CPU s / requests x 1000, the "
    "median over the runs."
)

#: Average cores used by other processes during a run above which the run is flagged.
OTHERS_LIMIT = 0.25


def _other_cores(run: ToolRun) -> float:
    wall = float(run.usage.get("wall_s") or 0.0)
    return (run.other_cpu_s or 0.0) / wall if wall > 0 else 0.0


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def summarize(cases: Sequence[Case], runs: Sequence[ToolRun], tools: Sequence[str]) -> dict[str, Any]:
    """``{"rows": [...], "resources": [...], "warnings": [...]}`` (see the module docstring)."""
    rows: list[dict[str, Any]] = []
    resources: list[dict[str, Any]] = []
    warnings: list[str] = []
    for case in cases:
        case_runs = [r for r in runs if r.case == case.name]
        for task, metric in case.shown:
            row: dict[str, Any] = {
                "case": case.name,
                "task": task,
                "metric": metric,
                "higher_is_better": metric == "throughput",
                # Until a run reports it: bulk tasks count documents, the others operations.
                "unit": ("docs/s" if task == "index-append" else "ops/s") if metric == "throughput" else "ms",
                "n": {},
                "spread": {},
            }
            for tool in TABLE_TOOLS:
                values = [
                    r.metrics[task][metric]
                    for r in case_runs
                    if r.tool == tool and r.ok and metric in r.metrics.get(task, {})
                ]
                if metric == "throughput":
                    unit = next((r.units[task] for r in case_runs if r.ok and task in r.units), None)
                    if unit:
                        row["unit"] = unit
                row[tool] = _median(values)
                row["n"][tool] = len(values)
                row["spread"][tool] = [min(values), max(values)] if values else None
            for a, b in RATIOS:
                row[f"{a}/{b}"] = _ratio(row[a], row[b])
            rows.append(row)
        for tool in tools:
            tool_runs = [r for r in case_runs if r.tool == tool]
            if not tool_runs:
                continue
            ok = [r for r in tool_runs if r.ok]

            def med(key: str, scale: float = 1.0, _ok: list[ToolRun] = ok) -> float | None:
                vals = [r.usage[key] / scale for r in _ok if key in r.usage]
                return _median(vals)

            counted = [cost.cost_requests(r.requests) for r in ok]
            per_1k = [
                cost.cpu_s_per_1k_requests(r.usage.get("cpu_s"), n)
                for r, (n, _) in zip(ok, counted, strict=True)
            ]

            resources.append(
                {
                    "case": case.name,
                    "tool": tool,
                    "runs_ok": len(ok),
                    "runs": len(tool_runs),
                    "wall_s": med("wall_s"),
                    "cpu_s": med("cpu_s"),
                    "requests": _median([n for n, _ in counted if n is not None]),
                    "requests_source": sorted({s for _, s in counted if s is not None}),
                    "cpu_s_per_1k_requests": _median([v for v in per_1k if v is not None]),
                    "peak_rss_mib": med("peak_rss_bytes", 2**20),
                    "peak_pss_mib": med("peak_pss_bytes", 2**20),
                    "peak_anon_mib": med("peak_anon_bytes", 2**20),
                    "processes": med("processes_seen"),
                    "server_cpu_s": _median([r.target_cpu_s for r in ok if r.target_cpu_s is not None]),
                    "other_cores": _median(
                        [round(_other_cores(r), 3) for r in ok if r.other_cpu_s is not None]
                    ),
                }
            )
            for r in tool_runs:
                off = cost.count_mismatch(r.requests)
                if off is not None and off > cost.MISMATCH_LIMIT:
                    warnings.append(
                        f"{case.name} / {tool} / rep {r.rep}: the tool counted {r.requests['tool']:,} "
                        f"requests, the stub {r.requests['server']:,} ({100 * off:.1f} % apart)"
                    )
                if not r.ok:
                    first = (r.error or "").strip().splitlines()[0] if r.error else "failed"
                    warnings.append(f"{case.name} / {tool} / rep {r.rep}: {first} (log: {r.log})")
                for task, m in r.metrics.items():
                    if m.get("error_rate_pct"):
                        warnings.append(
                            f"{case.name} / {tool} / rep {r.rep}: error rate {m['error_rate_pct']:.2f} % "
                            f"in task {task}"
                        )
    busy = [r for r in runs if _other_cores(r) > OTHERS_LIMIT]
    if busy:
        worst = max(_other_cores(r) for r in busy)
        warnings.append(
            f"{len(busy)} of {len(runs)} runs shared the CPU with other processes (besides the tool and "
            f"the server) using more than {OTHERS_LIMIT} cores on average (max {worst:.2f} cores): their "
            "numbers are lower than on an idle machine."
        )
    return {"rows": rows, "resources": resources, "warnings": warnings}


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _fmt_ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def metric_table(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the main table."""
    headers = [
        "case",
        "task",
        "metric",
        "unit",
        *(TOOL_LABELS[t] for t in TABLE_TOOLS),
        *(f"{TOOL_LABELS[a]}/{TOOL_LABELS[b]}" for a, b in RATIOS),
    ]
    out = []
    for r in summary["rows"]:
        out.append(
            [
                r["case"],
                r["task"],
                METRIC_LABELS.get(r["metric"], r["metric"]),
                r["unit"],
                *(_fmt(r.get(t)) for t in TABLE_TOOLS),
                *(_fmt_ratio(r.get(f"{a}/{b}")) for a, b in RATIOS),
            ]
        )
    return headers, out


def resource_table(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the load-driver resource table."""
    headers = [
        "case",
        "tool",
        "runs ok",
        "wall s",
        "CPU s",
        "requests",
        "CPU s / 1k req",
        "peak RSS MiB",
        "peak PSS MiB",
        "peak anon MiB",
        "processes",
        "server CPU s",
        "others (cores)",
    ]
    out = []
    for r in summary["resources"]:
        out.append(
            [
                r["case"],
                TOOL_LABELS[r["tool"]],
                f"{r['runs_ok']}/{r['runs']}",
                _fmt(r["wall_s"]),
                _fmt(r["cpu_s"]),
                _fmt(r.get("requests")),
                _fmt(r.get("cpu_s_per_1k_requests")),
                _fmt(r["peak_rss_mib"]),
                _fmt(r["peak_pss_mib"]),
                _fmt(r.get("peak_anon_mib")),
                _fmt(r["processes"]),
                _fmt(r.get("server_cpu_s")),
                _fmt(r.get("other_cores")),
            ]
        )
    return headers, out


def pipe_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-markdown pipe table (also readable on a terminal)."""
    widths = [max([len(str(h)), *(len(str(r[i])) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def render_markdown(doc: dict[str, Any]) -> str:
    """The markdown report: machine, versions, command, cases, both tables, warnings."""
    s = doc["summary"]
    parts = [f"# Side-by-side benchmark {doc['started']}", ""]
    m = doc["machine"]
    parts += [
        f"- machine: {m['nproc']} cores ({m['cpu_model']}), {m['memory']} RAM, {m['kernel']}",
        f"- load average at start / end: {m['loadavg_start']} / {m.get('loadavg_end', '?')}",
        "- versions: " + "; ".join(f"{k}: {v}" for k, v in doc["versions"].items()),
        f"- repetitions: {doc['settings']['repetitions']} (medians shown; tools alternate)",
        f"- command: `{doc['command']}`",
        "",
        "Cases:",
        "",
        *(f"- `{c['name']}`: {c['description']}" for c in doc["cases"]),
        "",
    ]
    if doc.get("interrupted"):
        parts += ["**Interrupted**: the tables cover only the runs that finished.", ""]
    h, rows = metric_table(s)
    parts += [pipe_table(h, rows), ""]
    h, rows = resource_table(s)
    parts += [
        "Load-driver resources (whole process tree, medians):",
        "",
        pipe_table(h, rows),
        "",
        RESOURCE_NOTE,
        "",
    ]
    if s["warnings"]:
        parts += ["Warnings:", "", *(f"- {w}" for w in s["warnings"]), ""]
    return "\n".join(parts)
