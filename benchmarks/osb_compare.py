"""Run each opensearch-benchmark-workloads workload in test mode with OpenSearch Benchmark 2.4.0 and
with esbench against the same OpenSearch node, and print the tasks and error rate per task of each.

    python3 benchmarks/osb_compare.py [--out DIR] [--osb PATH] [--workloads DIR] [--json FILE] [WORKLOAD...]

Without WORKLOAD names, every workload of the checkout (18 directories with a ``workload.json``).
Per workload both tools get the same command line but for the first word::

    opensearch-benchmark run --workload-path=W --test-mode --pipeline=benchmark-only --offline \\
        --target-hosts=HOST --results-format=csv --results-file=F [--workload-params=P]
    esbench              run ...the same...

What it does, inside a private network and PID namespace (``unshare --net --pid --fork
--mount-proc``, as benchmarks/isolated_rally_compare.sh does for Rally: OSB, like Rally, allows one
benchmark per machine and its actor system wants port 1900 and a non-loopback address):

1. builds the node once (cached in ``~/.cache/esbench/osb-compare``): the OpenSearch 2.19.1
   integ-test zip from Maven with the k-NN plugin 2.19.1.0 installed (``opensearch-plugin
   install``); k-NN extends ``lang-painless``, which the integ-test zip lacks and Maven has only as
   jars, so the module is assembled from ``org.opensearch.plugin:lang-painless:2.19.1`` and its
   runtime jars (:mod:`osb_compare_node`). Maven has no k-NN native libraries: the Lucene engine
   works, faiss and nmslib do not (the node dies when one loads), so the vector workload runs with
   the Lucene params file it ships;
2. starts one node with ``esbench start --distribution-path``;
3. per workload: writes its ``-1k`` corpora, generated from its index mappings
   (benchmarks/osb_compare_corpora.py), into each tool's own data directory (each tool has its own
   HOME), deletes every index, runs one tool, deletes every index, runs the other (OSB first on
   even-numbered workloads, esbench first on odd ones), each stopped after ``--timeout`` seconds;
4. parses both tools' CSV results (``error rate,TASK,VALUE,%`` rows; a task is reported when it
   has any row) and prints one table: workload | task | OSB error rate | esbench error rate | same?,
   with tasks only one tool reported and how each run ended (exit status, the last error line).

``--json FILE`` also writes the rows as JSON (tests/integration/test_osb_compare.py reads it).
Needs root (unshare), Maven, Java 17, OSB 2.4.0 (default /work/venvs/osb/bin/opensearch-benchmark,
or $ESBENCH_OSB_PYTHON's directory) and the workloads (default: the mirror's HEAD, exported).
Exits 0 when every compared workload has the same tasks and error rates, 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MIRROR = Path("/work/.mirror/opensearch-project+opensearch-benchmark-workloads/repo")
#: Params files the workloads ship for a run (their READMEs name them); the vector workload's is
#: rewritten to read the generated HDF5 data set instead of /tmp/sift-128-euclidean.hdf5.
PARAMS = {"neural_search": "params/semantic_search.json", "vectorsearch": "params/lucene-sift-128-l2.json"}


@dataclass
class Run:
    """One tool's run of one workload: exit status, seconds, error rate (%) per reported task,
    the last ``[ERROR]``/``ERROR`` line of its output (empty when it ended cleanly)."""

    tool: str
    exit_code: int
    seconds: float
    error_rates: dict[str, float | None] = field(default_factory=dict)
    error: str = ""


#: Seconds an esbench task may wait in its retry loop before the run is stopped (see _watch): twice
#: OSB's default operation bound, which esbench applies itself.
WAIT_LIMIT_S = 120


def default_osb() -> Path:
    python = os.environ.get("ESBENCH_OSB_PYTHON")
    if python:
        return Path(python).parent / "opensearch-benchmark"
    return Path("/work/venvs/osb/bin/opensearch-benchmark")


def parse_results(path: Path) -> dict[str, float | None]:
    """Task -> error rate in % from a ``Metric,Task,Value,Unit`` CSV (OSB's ``publisher.py``
    ``format_as_csv``; esbench writes the same layout). A task with rows but no error-rate row maps
    to None; a missing file gives {} (the run ended before its summary)."""
    if not path.is_file():
        return {}
    rates: dict[str, float | None] = {}
    with path.open(newline="") as f:
        reader = csv.reader(f)
        next(reader, None)
        for row in reader:
            if len(row) < 3 or not row[1]:
                continue
            metric, task, value = row[0], row[1], row[2]
            if metric == "error rate":
                try:
                    rates[task] = float(value)
                except ValueError:
                    rates[task] = None
            else:
                rates.setdefault(task, None)
    return rates


def last_error(output: str) -> str:
    """The last error a run's output reports (an ``[ERROR]`` line, or a line starting with
    ``ERROR``), with the indented lines after it (OSB prints the cause there), shortened; empty
    when there is none."""
    lines = output.splitlines()
    found = ""
    for i, line in enumerate(lines):
        if "[ERROR]" in line or line.strip().startswith("ERROR"):
            parts = [line.strip()]
            for following in lines[i + 1 : i + 4]:
                if not following.startswith(("\t", "  ")) or not following.strip():
                    break
                parts.append(following.strip())
            found = " ".join(parts)
    return found[:300]


def node_alive(host: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}/", timeout=10) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def delete_indices(host: str) -> None:
    """Delete every index but the node's hidden system ones, and every data stream, so each run
    starts from the same empty node."""
    with urllib.request.urlopen(f"http://{host}/_cat/indices?h=index&expand_wildcards=all", timeout=60) as r:
        names = [n for n in r.read().decode().split() if not n.startswith(".")]
    for name in names:
        req = urllib.request.Request(f"http://{host}/{name}", method="DELETE")
        with urllib.request.urlopen(req, timeout=60):
            pass
    req = urllib.request.Request(f"http://{host}/_data_stream/*", method="DELETE")
    try:
        with urllib.request.urlopen(req, timeout=60):
            pass
    except OSError:
        pass


def command(workload: Path, host: str, results: Path, params: Path | str | None) -> list[str]:
    """The run's arguments after the program name, the same for both tools."""
    args = [
        "run",
        f"--workload-path={workload}",
        "--test-mode",
        "--pipeline=benchmark-only",
        "--offline",
        f"--target-hosts={host}",
        "--results-format=csv",
        f"--results-file={results}",
    ]
    if params is not None:
        args.append(f"--workload-params={params}")
    return args


def run_tool(tool: str, argv: list[str], out: Path, osb: Path, name: str, timeout: int) -> Run:
    """Run ``tool`` (``osb`` or ``esbench``) with ``argv``; its output goes to OUT/NAME.TOOL.out."""
    home = out / f"{tool}-home"
    env = {**os.environ, "HOME": str(home)}
    if tool == "osb":
        program = [str(osb)]
    else:
        program = [sys.executable, "-m", "esbench"]
        env["ESBENCH_HOME"] = str(out / "esbench-home")
        env["PYTHONPATH"] = str(REPO)
    started = time.perf_counter()
    log = out / f"{name}.{tool}.out"
    with log.open("w") as sink:
        # Its own session, so that a run stopped at the time limit goes with its worker processes.
        proc = subprocess.Popen(
            program + argv, cwd=out, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
        stopped = _watch(proc, log, timeout, tool)
        if stopped:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            print(f"[ERROR] {stopped}", file=sink)
        code = -1 if stopped else proc.returncode
        _end_group(proc.pid)
    output = log.read_text(errors="replace")
    seconds = time.perf_counter() - started
    results = Path(next(a for a in argv if a.startswith("--results-file=")).split("=", 1)[1])
    return Run(tool, code, round(seconds, 1), parse_results(results), last_error(output))


def _group_members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (read from /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, pgrp; a zombie has ended already.
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(stat.parent.name))
    return members


def _end_group(pgid: int, wait_s: float = 30.0) -> None:
    """End what is left of a run's process group and wait until it is gone: OSB's actor system
    outlives the command for a while, and the next OSB run refuses to start while another OSB
    process runs ("other OSB processes running")."""
    deadline = time.monotonic() + wait_s
    sig = signal.SIGTERM
    while _group_members(pgid):
        if time.monotonic() > deadline:
            if sig is signal.SIGKILL:
                print(f"[WARNING] process group {pgid} still has {_group_members(pgid)}", file=sys.stderr)
                return
            sig, deadline = signal.SIGKILL, time.monotonic() + 5
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        time.sleep(0.2)


#: esbench's live line for a task that waits in a retry loop (retry-until-success).
_WAITING = re.compile(r"^\[WAITING\] ([^:]+):.*\(waiting (\d+) s")


def _watch(proc: subprocess.Popen[bytes], log: Path, timeout: int, tool: str) -> str:
    """Wait for ``proc``; return why it had to be stopped, or "" when it ended by itself.

    Stopped: after ``timeout`` seconds; and an esbench run whose task has been waiting in its
    retry loop for :data:`WAIT_LIMIT_S`: OSB 2.4.0 ends any request after the client option
    ``timeout`` (60 s by default) and counts an error (``_execute_request`` in
    ``osbenchmark/worker_coordinator/worker_coordinator.py``). esbench now applies the same bound
    to OSB workloads (:mod:`esbench.driver.worker.operationbound`), so this stop is a backstop: it
    fires only if that bound fails, which the first comparison's runs, made before it existed, show
    (docs/osb-compare.md)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            proc.wait(timeout=2)
            return ""
        except subprocess.TimeoutExpired:
            pass
        if tool == "esbench":
            with log.open("rb") as f:
                f.seek(max(0, log.stat().st_size - 16384))
                tail = f.read().decode(errors="replace").splitlines()
            for line in reversed(tail):
                waiting = _WAITING.match(line)
                if waiting:
                    if int(waiting.group(2)) >= WAIT_LIMIT_S:
                        return (
                            f"stopped: task {waiting.group(1)} still waiting after {waiting.group(2)} s "
                            "(retry-until-success; OSB ends the request after 60 s)"
                        )
                    break
    return f"stopped after {timeout} s (--timeout)"


def prepare_workload(root: Path, out: Path, osb: Path) -> Path | None:
    """Write the workload's corpora for both tools; return the params file to pass, if any."""
    import osb_compare_corpora as corpora

    from esbench.track import load_track
    from esbench.track.params import parse_track_params

    params_file: Path | None = None
    corpora.write_query_files(root)
    if root.name in PARAMS:
        params_file = root / PARAMS[root.name]
        if root.name == "vectorsearch":
            params = json.loads(params_file.read_text())
            data = out / "data" / "sift-128-euclidean.hdf5"
            corpora.write_hdf5(osb.parent / "python", data, int(params["target_index_dimension"]))
            params["target_index_bulk_index_data_set_path"] = str(data)
            params["query_data_set_path"] = str(data)
            params_file = out / "data" / "vectorsearch-params.json"
            params_file.write_text(json.dumps(params, indent=2))
    track = load_track(
        path=root, params=parse_track_params(str(params_file)) if params_file else {}, test_mode=True
    )
    osb_data = out / "osb-home" / ".benchmark" / "benchmarks" / "data"
    written = corpora.write_corpora(track, [osb_data, out / "esbench-home" / "corpora"])
    corpora.write_osb_offset_tables([p for p in written if p.is_relative_to(osb_data)])
    return params_file


def compare(name: str, osb_run: Run, es_run: Run) -> list[list[str]]:
    """Table rows for one workload: one per task either tool reported, then one for the ending."""
    rows = []
    for task in sorted(set(osb_run.error_rates) | set(es_run.error_rates)):
        a = osb_run.error_rates.get(task, "absent")
        b = es_run.error_rates.get(task, "absent")
        rows.append([name, task, str(a), str(b), "yes" if a == b else "NO"])
    # The table keeps the first words of the error; the JSON has it whole.
    ended = [f"exit {r.exit_code}" + (f": {r.error[:100]}" if r.error else "") for r in (osb_run, es_run)]
    same_end = (osb_run.exit_code == 0) == (es_run.exit_code == 0)
    rows.append([name, "(run ended)", ended[0], ended[1], "yes" if same_end else "NO"])
    return rows


def inside(args: argparse.Namespace) -> int:
    import osb_compare_node as node
    from tabulate import tabulate

    out: Path = args.out
    # As PID 1 of the namespace this process ignores SIGTERM unless it handles it; handled, the
    # node is stopped on the way out (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    # OSB's actor system, like Rally's, looks for a non-loopback address.
    subprocess.run(["ip", "addr", "add", "10.213.0.1/32", "dev", "lo"], check=True)
    subprocess.run(["ip", "route", "add", "default", "dev", "lo"], check=True)
    workloads = args.workloads
    names = args.names or sorted(p.parent.name for p in workloads.glob("*/workload.json"))
    dist = node.distribution()
    print(f"node: {dist.describe}", flush=True)
    cluster = node.Node(dist, out / "node-home", REPO)
    host = cluster.start()
    all_rows: list[list[str]] = []
    report = []
    started_all = time.perf_counter()
    try:
        for i, name in enumerate(names):
            root = workloads / name
            if not node_alive(host):
                print(f"{name}: the node was down; starting it again", flush=True)
                host = cluster.restart()
            params: Path | str | None = prepare_workload(root, out, args.osb)
            if args.workload_params:
                if params is not None:
                    print(f"{name}: its own params file {params} is used, not --workload-params", flush=True)
                else:
                    params = args.workload_params
            runs: dict[str, Run] = {}
            order = ("osb", "esbench") if i % 2 == 0 else ("esbench", "osb")
            for tool in order:
                if not node_alive(host):
                    print(f"{name}: the node died before {tool}'s run; starting it again", flush=True)
                    host = cluster.restart()
                delete_indices(host)
                results = out / f"{name}.{tool}.csv"
                results.unlink(missing_ok=True)
                argv = command(root, host, results, params)
                runs[tool] = run_tool(tool, argv, out, args.osb, name, args.timeout)
                print(
                    f"{name}: {tool} exit {runs[tool].exit_code} in {runs[tool].seconds} s, "
                    f"{len(runs[tool].error_rates)} tasks",
                    flush=True,
                )
            if i == 0:
                shown = [a.replace(f"{name}.{tool}.csv", f"{name}.TOOL.csv") for a in argv]
                print("command: opensearch-benchmark " + shlex.join(shown))
                print("         esbench " + shlex.join(shown) + "  (TOOL: osb, esbench)")
            rows = compare(name, runs["osb"], runs["esbench"])
            all_rows += rows
            report.append(
                {
                    "workload": name,
                    "osb": asdict(runs["osb"]),
                    "esbench": asdict(runs["esbench"]),
                    "rows": rows,
                }
            )
            if args.json:
                # Written after every workload, so that a run stopped early keeps what it compared.
                partial = {"node": dist.describe, "seconds": round(time.perf_counter() - started_all)}
                args.json.write_text(json.dumps({**partial, "workloads": report}, indent=1))
    finally:
        cluster.stop()
    total = time.perf_counter() - started_all
    print(
        tabulate(all_rows, headers=["workload", "task", "OSB error rate %", "esbench error rate %", "same?"])
    )
    differ = sorted({r[0] for r in all_rows if r[4] != "yes"})
    print(
        f"\n{len(names) - len(differ)} of {len(names)} workloads: same tasks and error rates "
        f"(and same ending); differ: {', '.join(differ) or 'none'}. {total:.0f} s in all."
    )
    print(f"node: {dist.describe}; workloads: {workloads}")
    if args.json:
        args.json.write_text(
            json.dumps({"node": dist.describe, "seconds": round(total), "workloads": report}, indent=1)
        )
    return 1 if differ else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="WORKLOAD")
    parser.add_argument("--out", type=Path, default=Path("/tmp/osb-compare"))
    parser.add_argument("--osb", type=Path, default=default_osb())
    parser.add_argument("--workloads", type=Path, help="a checkout of opensearch-benchmark-workloads")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--workload-params",
        help="for both tools, in workloads without a params file of their own (e.g. number_of_replicas:0)",
    )
    parser.add_argument(
        "--timeout", type=int, default=600, help="seconds per tool and workload (default 600)"
    )
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.out = args.out.resolve()
    if not args.osb.is_file():
        print(
            f"OpenSearch Benchmark not found at {args.osb}; pass --osb or set ESBENCH_OSB_PYTHON.",
            file=sys.stderr,
        )
        return 64
    if args.inside:
        sys.path.insert(0, str(HERE))
        sys.path.insert(0, str(REPO))
        return inside(args)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.workloads is None:
        args.workloads = args.out / "workloads"
        if not args.workloads.is_dir():
            args.workloads.mkdir()
            archive = subprocess.run(
                ["git", f"--git-dir={MIRROR}", "archive", "HEAD"], check=True, capture_output=True
            ).stdout
            subprocess.run(["tar", "x", "-C", str(args.workloads)], input=archive, check=True)
    unknown = [n for n in args.names if not (args.workloads / n / "workload.json").is_file()]
    if unknown:
        print(f"no workload.json for {', '.join(unknown)} in {args.workloads}", file=sys.stderr)
        return 64
    inner = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--inside",
        f"--out={args.out}",
        f"--osb={args.osb}",
    ]
    inner.append(f"--timeout={args.timeout}")
    if args.workload_params:
        inner.append(f"--workload-params={args.workload_params}")
    inner.append(f"--workloads={args.workloads.resolve()}")
    if args.json:
        inner.append(f"--json={args.json.resolve()}")
    # Run where "python -m esbench" cannot pick up another checkout from the current directory.
    return subprocess.run(
        ["unshare", "--net", "--pid", "--fork", "--mount-proc", *inner, *args.names], cwd=args.out
    ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
