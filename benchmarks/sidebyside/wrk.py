"""wrk, the physical reference of the side-by-side benchmark: POST with the same body as the race
tools, ``wrk --latency`` text output parsed for requests/s, the request count and percentiles."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from sidebyside.measure import ToolRun, run_tool

_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def parse_wrk_output(text: str) -> dict[str, float]:
    """``{"requests_per_s", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "requests", "errors"}``
    from ``wrk --latency`` output (errors: non-2xx/3xx responses plus socket errors).

    Raises:
        ValueError: no ``Requests/sec`` line (wrk failed).
    """
    out: dict[str, float] = {}
    m = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    if not m:
        raise ValueError("wrk output has no 'Requests/sec' line")
    out["requests_per_s"] = float(m.group(1))
    m = re.search(r"^\s*(\d+) requests in", text, re.M)
    if m:
        out["requests"] = float(m.group(1))
    dist = text.split("Latency Distribution", 1)
    if len(dist) == 2:
        for pct, value, unit in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s|m)\s*$", dist[1], re.M):
            out[f"latency_p{pct}_ms"] = float(value) * _UNITS_MS[unit]
    errors = 0.0
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    if m:
        errors += float(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        errors += sum(float(x) for x in m.groups())
    out["errors"] = errors
    return out


@dataclass(frozen=True, kw_only=True)
class WrkSpec:
    """A wrk reference run: POST ``path`` with the body in ``body_file``.

    Attributes:
        task: the task of the race tools this run is the reference for.
        connections / threads: wrk's ``-c`` / ``-t``.
        duration_s: wrk's ``-d``.
        path: request path (``/stub/_search``).
        body_file: file with the request body.
        content_type: request content type.
        docs_per_request: documents per request (bulk: throughput is reported in docs/s).
    """

    task: str
    connections: int
    threads: int
    duration_s: int
    path: str
    body_file: Path
    content_type: str = "application/json"
    docs_per_request: int = 1


def wrk_lua(spec: WrkSpec) -> str:
    """The wrk Lua script: method, path, headers, and the body read from ``spec.body_file``."""
    return (
        'wrk.method = "POST"\n'
        f"wrk.path = {json.dumps(spec.path)}\n"
        f'wrk.headers["Content-Type"] = {json.dumps(spec.content_type)}\n'
        f'local f = assert(io.open({json.dumps(str(spec.body_file))}, "rb"))\n'
        'wrk.body = f:read("*a")\n'
        "f:close()\n"
    )


def run_wrk(*, case: str, rep: int, host: str, spec: WrkSpec, run_dir: Path) -> ToolRun:
    """One wrk run, measured. Metrics: throughput (requests/s x docs per request) and latency
    percentiles (with one connection and no think time, wrk's latency is the service time)."""
    script = run_dir / f"{case}.wrk.lua"
    run_dir.mkdir(parents=True, exist_ok=True)
    script.write_text(wrk_lua(spec))
    cmd = [
        "wrk",
        "-t",
        str(spec.threads),
        "-c",
        str(spec.connections),
        "-d",
        f"{spec.duration_s}s",
        "--latency",
        "-s",
        str(script),
        f"http://{host}",
    ]
    rc, base, log = run_tool("wrk", cmd, case=case, rep=rep, run_dir=run_dir, timeout=spec.duration_s + 60)
    text = log.read_text(errors="replace") if log.exists() else ""
    if rc != 0:
        return ToolRun(ok=False, error=f"wrk exit code {rc}:\n{text[-1500:]}", **base)
    try:
        w = parse_wrk_output(text)
    except ValueError as e:
        return ToolRun(ok=False, error=f"{e}:\n{text[-1500:]}", **base)
    m: dict[str, float] = {"throughput": w["requests_per_s"] * spec.docs_per_request}
    for p in ("50", "90"):
        if f"latency_p{p}_ms" in w:
            m[f"service_time_p{p}_ms"] = w[f"latency_p{p}_ms"]
    requests = w.get("requests", 0.0)
    m["error_rate_pct"] = 100.0 * w["errors"] / requests if requests else 0.0
    unit = "docs/s" if spec.docs_per_request > 1 else "ops/s"
    counted = {"tool": int(requests)} if "requests" in w else {}
    return ToolRun(
        ok=True, error=None, metrics={spec.task: m}, units={spec.task: unit}, requests=counted, **base
    )
