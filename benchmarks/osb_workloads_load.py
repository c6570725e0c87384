"""Load, render and register the plugins of every workload of opensearch-benchmark-workloads.

For each workload directory (a ``workload.json``) of a checkout of
github.com/opensearch-project/opensearch-benchmark-workloads, unchanged: load it in test mode the
way ``esbench race --track-path=DIR --test-mode`` does (render, validate, build the model, apply
test mode), import its ``workload.py`` and call its ``register(registry)`` (the ``osbenchmark``
stand-in when OSB is not installed), and apply its workload processors. Prints one row per
workload (test procedures, the default one, its tasks, the plugin's runners and param sources) and
the command. Workloads whose template needs params to render a valid workload get the params file
the workload ships for it (printed in the row).

    python3 benchmarks/osb_workloads_load.py DIR_OF_THE_CHECKOUT [--osb PATH/TO/opensearch-benchmark]

With ``--osb``, OpenSearch Benchmark itself is the oracle: ``opensearch-benchmark info
--workload-path=DIR --offline`` (with the same params; OSB's info has no test mode, so esbench's
side is loaded without it too) lists every test procedure,
whether it runs by default, and its schedule (task names, clients, parallel blocks); the row says
whether esbench's model of the workload has the same ones (``same as OSB``) or the first
difference. OSB runs with a private HOME under /tmp.

Exits 1 when a workload does not get through or differs from OSB.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from esbench.compat.host import RallyPluginHost
from esbench.driver.worker.registry import race_registry
from esbench.exceptions import EsbenchError
from esbench.track import load_track
from esbench.track.model import Parallel, Track
from esbench.track.params import parse_track_params

#: Params files the workloads ship and document for runs whose template needs them (the
#: workload's README gives the same file).
PARAMS = {"neural_search": "params/semantic_search.json"}


Schedules = dict[str, tuple[bool, list[str]]]


def _line(name: str, clients: int) -> str:
    # OSB's workload_info: "NAME" plus " (N clients)" when N > 1.
    return name + (f" ({clients} clients)" if clients > 1 else "")


def esbench_schedules(track: Track) -> Schedules:
    """Test procedure name -> (runs by default, schedule lines as OSB's ``info`` prints them)."""
    out: Schedules = {}
    for challenge in track.challenges:
        lines: list[str] = []
        for item in challenge.schedule:
            if isinstance(item, Parallel):
                clients = item.clients if item.clients is not None else sum(t.clients for t in item.tasks)
                lines.append(_line(f"{len(item.tasks)} parallel tasks", clients) + ":")
                lines += ["\t" + _line(t.name, t.clients) for t in item.tasks]
            else:
                lines.append(_line(item.name, item.clients))
        out[challenge.name] = (challenge.default, lines)
    return out


_HEADING = re.compile(r"^TestProcedure \[(.+?)\]( \(run by default\))?$")
_ITEM = re.compile(r"^(\t?)\d+(?:\.\d+ |\. )(.*)$")


def osb_schedules(osb: Path, root: Path, params_file: str | None) -> Schedules:
    """What ``opensearch-benchmark info`` prints for the workload in ``root``, parsed.

    Raises:
        RuntimeError: OSB failed (its output is in the message).
    """
    args = [str(osb), "info", f"--workload-path={root}", "--offline"]
    if params_file:
        args.append(f"--workload-params={root / params_file}")
    with tempfile.TemporaryDirectory(prefix="osb-home-") as home:
        proc = subprocess.run(
            args, capture_output=True, text=True, env={**os.environ, "HOME": home}, timeout=300
        )
    if proc.returncode != 0:
        raise RuntimeError(proc.stdout[-800:] + proc.stderr[-800:])
    out: Schedules = {}
    current: list[str] | None = None
    for raw in proc.stdout.splitlines():
        heading = _HEADING.match(raw.strip())
        if heading:
            current = []
            out[heading.group(1)] = (heading.group(2) is not None, current)
            continue
        item = _ITEM.match(raw)
        if item and current is not None:
            current.append(item.group(1) + item.group(2))
    return out


def difference(ours: Schedules, theirs: Schedules) -> str:
    """``same as OSB`` or the first difference between the two.

    The order of the test procedures is not compared: OSB joins the files of a
    ``benchmark.collect`` glob in the order the file system lists them (``glob.glob`` unsorted,
    ``TemplateSource.read_glob_files``), which differs between file systems; esbench sorts them, as
    Rally does. The schedules are compared in order."""
    if sorted(ours) != sorted(theirs):
        return f"test procedures differ: esbench {sorted(ours)} OSB {sorted(theirs)}"
    for name, (default, lines) in ours.items():
        osb_default, osb_lines = theirs[name]
        if default != osb_default:
            return f"default of {name}: esbench {default} OSB {osb_default}"
        if lines != osb_lines:
            first = next((i for i, (a, b) in enumerate(zip(lines, osb_lines, strict=False)) if a != b), None)
            if first is None:
                return f"{name}: {len(lines)} schedule lines, OSB {len(osb_lines)}"
            return f"{name}, item {first + 1}: esbench {lines[first]!r} OSB {osb_lines[first]!r}"
    return "same as OSB"


def check(root: Path, osb: Path | None) -> list[object]:
    """One row: workload, result, test procedures, default, tasks of the default, seconds, runners,
    and the comparison with OSB (with ``osb``)."""
    params_file = PARAMS.get(root.name)
    params = parse_track_params(str(root / params_file)) if params_file else {}
    started = time.perf_counter()
    name = root.name + (f" ({params_file})" if params_file else "")
    try:
        track = load_track(path=root, params=params, test_mode=True)
        registry = race_registry(track, RallyPluginHost())
    except EsbenchError as e:
        return [name, f"FAIL: {str(e)[:160]}", "", "", "", f"{time.perf_counter() - started:.2f}", "", ""]
    seconds = f"{time.perf_counter() - started:.2f}"
    default = track.default_challenge
    compared = ""
    if osb is not None:
        try:
            full = load_track(path=root, params=params)
            compared = difference(esbench_schedules(full), osb_schedules(osb, root, params_file))
        except RuntimeError as e:
            compared = f"OSB failed: {str(e)[-200:]}"
    return [
        name,
        "ok",
        len(track.challenges),
        default.name,
        len(default.schedule),
        seconds,
        len(registry.operation_types()),
        compared,
    ]


def main(argv: list[str]) -> int:
    osb: Path | None = None
    if "--osb" in argv:
        at = argv.index("--osb")
        osb = Path(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(__doc__)
        return 2
    base = Path(argv[0]).resolve()
    workloads = sorted(p.parent for p in base.glob("*/workload.json"))
    rows = [check(root, osb) for root in workloads]
    headers = [
        "workload",
        "result",
        "test procedures",
        "default",
        "tasks",
        "load s",
        "runners",
        "vs OSB 2.4.0 info",
    ]
    print(tabulate(rows, headers=headers))
    failed = [r for r in rows if r[1] != "ok" or (osb is not None and r[7] != "same as OSB")]
    print(
        f"\n{len(rows) - len(failed)} of {len(rows)} workloads loaded, rendered and registered their plugins"
        + (" and match OSB's info." if osb else ".")
    )
    print(f"command: python3 benchmarks/osb_workloads_load.py {base}" + (f" --osb {osb}" if osb else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
