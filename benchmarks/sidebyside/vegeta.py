"""vegeta, a Go HTTP load tester, as a fourth load driver of the side-by-side benchmark.

It sends the wrk reference's request (same method, path, body file and content type: the case's
:class:`~sidebyside.wrk.WrkSpec`) as a closed loop with a fixed number of workers:

    vegeta attack -rate=0 -workers=N -max-workers=N -max-connections=N -max-body=0 -duration=Ds ...
    vegeta report -type=json RESULTS.gob

Semantics (vegeta v12.13.0 source, ``lib/attack.go``, ``lib/pacer.go``, ``attack.go``, ``lib/metrics.go``):

- ``-rate=0`` is the "infinite" pacer (``ConstantPacer.Pace`` returns no wait); the attack CLI refuses
  it without ``-max-workers``. The attack loop hands a tick to whichever of the ``-workers`` goroutines
  is free and, with ``workers == max-workers``, never starts more: N workers, each sending its next
  request as soon as its previous response is read, i.e. a closed loop of N clients without think time.
- Connections: Go's ``http.Transport`` with keep-alive on (``-keepalive`` defaults to true), so
  connections are reused; ``-max-connections=N`` caps the connections per host at N (like wrk's ``-c``;
  Go could otherwise dial an extra connection while a finished one is still being returned to the
  idle pool). Plain ``http://`` targets speak HTTP/1.1 (``-http2`` applies to TLS only).
- Every result (timestamp, latency, status, headers, body) is gob-encoded to the output file; with
  ``-max-body=0`` the response body is read and discarded rather than stored, like wrk does.
- Latency is measured per request from just before the request is built until its body is read; in a
  closed loop without think time that is the service time. The report's percentiles come from a
  t-digest (compression 100), i.e. estimates, not exact order statistics.
- ``throughput`` = successful requests / (first-to-last request start + the last request's latency).
- ``-duration`` stops starting requests after D seconds; in-flight requests finish. No warmup (like wrk).

The measured CPU of a vegeta run is that of both steps (attack, and the report that decodes the
results): together they are what vegeta does to produce its numbers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sidebyside.measure import ToolRun, run_measured, run_tool
from sidebyside.paths import BenchPaths
from sidebyside.wrk import WrkSpec

MODULE = "github.com/tsenart/vegeta/v12"
VERSION = "v12.13.0"
_GO_FALLBACK = Path("/usr/local/go/bin/go")


def go_binary() -> str | None:
    """The ``go`` toolchain: on PATH, else ``/usr/local/go/bin/go`` (the official tarball's place)."""
    found = shutil.which("go")
    if found:
        return found
    return str(_GO_FALLBACK) if _GO_FALLBACK.exists() else None


def vegeta_binary(paths: BenchPaths) -> Path:
    """Where the benchmark installs vegeta (``GOBIN`` = ``HOME/tools/bin``)."""
    return paths.tools_bin / "vegeta"


def ensure_vegeta(paths: BenchPaths, *, install: bool = True, log: Any = print) -> str:
    """Make sure vegeta is installed; return its version (``vegeta v12.13.0 (go1.26...)``).

    Installs with ``GOBIN=HOME/tools/bin go install github.com/tsenart/vegeta/v12@v12.13.0``.

    Raises:
        RuntimeError: vegeta is missing and ``install`` is False, Go is not installed, or
            ``go install`` failed.
    """
    binary = vegeta_binary(paths)
    go = go_binary()
    if not binary.exists():
        if not install:
            raise RuntimeError(f"vegeta is not installed at {binary} (run without --no-install).")
        if go is None:
            raise RuntimeError(
                f"vegeta is not installed at {binary} and there is no Go toolchain to install it with "
                "(neither `go` on PATH nor /usr/local/go/bin/go). Install Go (https://go.dev/dl/) or "
                f"leave vegeta out with --tools esbench,rally,wrk."
            )
        log(f"installing vegeta {VERSION} into {paths.tools_bin} (go install {MODULE}@{VERSION})")
        paths.tools_bin.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, GOBIN=str(paths.tools_bin))
        r = subprocess.run(
            [go, "install", f"{MODULE}@{VERSION}"], env=env, capture_output=True, text=True, timeout=900
        )
        if r.returncode != 0 or not binary.exists():
            raise RuntimeError(f"go install {MODULE}@{VERSION} failed:\n{r.stderr[-2000:]}")
    return installed_version(binary, go)


def installed_version(binary: Path, go: str | None) -> str:
    """``vegeta <module version> (<go version>)`` from the binary's build info (``go version -m``);
    vegeta's own ``-version`` prints an empty version when built by ``go install``."""
    if go is None:
        return "vegeta (version unknown: no go toolchain to read the build info)"
    r = subprocess.run([go, "version", "-m", str(binary)], capture_output=True, text=True, timeout=60)
    return parse_build_info(r.stdout)


def parse_build_info(text: str) -> str:
    """``vegeta v12.13.0 (go1.26.8)`` from ``go version -m`` output (its ``mod`` line and the first
    line's Go version); ``vegeta ?`` parts where a line is missing."""
    mod = re.search(r"^\s*mod\s+github\.com/tsenart/vegeta\S*\s+(\S+)", text, re.M)
    go = re.search(r":\s+(go\S+)", text.splitlines()[0]) if text.strip() else None
    return f"vegeta {mod.group(1) if mod else '?'} ({go.group(1) if go else 'go ?'})"


def attack_command(binary: Path, *, host: str, spec: WrkSpec, targets: Path, output: Path) -> list[str]:
    """The ``vegeta attack`` command line: ``spec.connections`` workers in a closed loop for
    ``spec.duration_s`` seconds, POSTing ``spec.body_file`` to ``spec.path`` (see the module docstring)."""
    n = str(spec.connections)
    return [
        str(binary),
        "attack",
        f"-targets={targets}",
        "-format=http",
        f"-body={spec.body_file}",
        f"-header=Content-Type: {spec.content_type}",
        "-rate=0",
        f"-workers={n}",
        f"-max-workers={n}",
        f"-max-connections={n}",
        "-keepalive=true",
        "-max-body=0",
        f"-duration={spec.duration_s}s",
        "-timeout=30s",
        f"-output={output}",
    ]


def targets_text(host: str, spec: WrkSpec) -> str:
    """The ``-targets`` file (vegeta's http format): one line ``POST http://HOST/PATH``."""
    return f"POST http://{host}{spec.path}\n"


def parse_vegeta_report(text: str) -> dict[str, float]:
    """Numbers from ``vegeta report -type=json`` (``lib/metrics.go``, ``Metrics``).

    Returns ``{"requests", "throughput" (successful requests/s), "rate" (requests started/s),
    "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_mean_ms", "errors"}``; errors are
    the results whose status is not 2xx/3xx (status ``0``: transport errors, timeouts).

    Raises:
        ValueError: not a vegeta JSON report, or it counted no requests.
    """
    try:
        data = json.loads(text)
        lat = data["latencies"]
        requests = int(data["requests"])
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise ValueError(f"not a vegeta JSON report ({e})") from e
    if requests <= 0:
        raise ValueError("vegeta's report counted no requests")
    codes: dict[str, int] = data.get("status_codes") or {}
    errors = sum(count for code, count in codes.items() if not 200 <= int(code) < 400)
    ns = 1e-6  # latencies are time.Duration values: nanoseconds
    return {
        "requests": float(requests),
        "throughput": float(data["throughput"]),
        "rate": float(data["rate"]),
        "latency_p50_ms": lat["50th"] * ns,
        "latency_p90_ms": lat["90th"] * ns,
        "latency_p99_ms": lat["99th"] * ns,
        "latency_mean_ms": lat["mean"] * ns,
        "errors": float(errors),
    }


def merge_usage(attack: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    """One usage record for both steps: CPU and wall seconds added, peaks the larger of the two; the
    attack's own CPU kept as ``attack_cpu_s``, the report's as ``report_cpu_s``."""
    out = dict(attack)
    for key in ("wall_s", "cpu_user_s", "cpu_sys_s", "cpu_s", "processes_seen", "leftovers_killed"):
        if key in attack or key in report:
            out[key] = round(attack.get(key, 0) + report.get(key, 0), 3)
    for key in ("peak_rss_bytes", "peak_pss_bytes", "peak_anon_bytes", "max_single_rss_bytes"):
        out[key] = max(attack.get(key, 0), report.get(key, 0))
    out["attack_cpu_s"] = attack.get("cpu_s")
    out["report_cpu_s"] = report.get("cpu_s")
    return out


def run_vegeta(paths: BenchPaths, *, case: str, rep: int, host: str, spec: WrkSpec, run_dir: Path) -> ToolRun:
    """One vegeta run (attack + report), measured as process trees. Metrics: throughput (successful
    requests/s x docs per request), p50/p90 service time, error rate; ``requests["tool"]`` = the
    requests it completed. The gob results file is deleted after the report (it grows ~100 bytes
    per request)."""
    binary = vegeta_binary(paths)
    run_dir.mkdir(parents=True, exist_ok=True)
    name = f"{case}.vegeta.{rep}"
    targets = run_dir / f"{case}.vegeta.targets"
    targets.write_text(targets_text(host, spec))
    results = run_dir / f"{name}.results.gob"
    report_file = run_dir / f"{name}.report.json"
    report_file.unlink(missing_ok=True)
    cmd = attack_command(binary, host=host, spec=spec, targets=targets, output=results)
    rc, base, log = run_tool("vegeta", cmd, case=case, rep=rep, run_dir=run_dir, timeout=spec.duration_s + 60)
    usage = base.pop("usage")
    if rc != 0:
        text = log.read_text(errors="replace") if log.exists() else ""
        results.unlink(missing_ok=True)
        return ToolRun(ok=False, error=f"vegeta attack exit code {rc}:\n{text[-1500:]}", usage=usage, **base)
    report_cmd = [str(binary), "report", "-type=json", f"-output={report_file}", str(results)]
    rc2, usage2, log2 = run_measured(
        report_cmd, run_dir=run_dir, name=f"{name}.report", timeout=spec.duration_s + 120
    )
    results.unlink(missing_ok=True)
    usage = merge_usage(usage, usage2)
    if rc2 != 0:
        text = log2.read_text(errors="replace") if log2.exists() else ""
        return ToolRun(ok=False, error=f"vegeta report exit code {rc2}:\n{text[-1500:]}", usage=usage, **base)
    try:
        v = parse_vegeta_report(report_file.read_text())
    except (OSError, ValueError) as e:
        return ToolRun(ok=False, error=f"cannot read vegeta's report {report_file}: {e}", usage=usage, **base)
    m = {
        "throughput": v["throughput"] * spec.docs_per_request,
        "service_time_p50_ms": v["latency_p50_ms"],
        "service_time_p90_ms": v["latency_p90_ms"],
        "error_rate_pct": 100.0 * v["errors"] / v["requests"],
    }
    unit = "docs/s" if spec.docs_per_request > 1 else "ops/s"
    return ToolRun(
        ok=True,
        error=None,
        metrics={spec.task: m},
        units={spec.task: unit},
        usage=usage,
        requests={"tool": int(v["requests"])},
        **base,
    )
