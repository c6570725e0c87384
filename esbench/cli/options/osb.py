"""OpenSearch Benchmark options that have no Rally counterpart (OSB 2.4.0
``osbenchmark/benchmark.py`` ``create_arg_parser``): taken where esbench has the meaning, refused
with their paragraph where it has not.

OSB's spellings of Rally's options (``--workload`` for ``--track``...) are not here: they are the
``osb`` spellings of the Rally entries. ``--latency-percentiles`` and ``--throughput-percentiles``
are report options (:mod:`esbench.cli.options.report`).
"""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import _params
from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.track import RACING

#: The one ``--database-type`` esbench serves: a cluster that speaks Elasticsearch's REST API.
OPENSEARCH = "opensearch"

_REDLINE = (
    "esbench does not ramp clients up and down against a live error or CPU signal (OSB's redline "
    "test). To find the highest rate a cluster sustains, use esbench find-max --track-path=DIR "
    "--task=TASK --slo='p99<200ms' (a bisection over target throughputs, each point a real race), or "
    "esbench optimize clients to find the client count; docs/planning.md describes both."
)

_ITERATIONS = (
    "esbench runs a workload once per command. Run it several times in a loop, each with "
    "--user-tag=series:NAME, then aggregate them when reading: esbench compare "
    "--baseline=tag:series:NAME --contender=... merges the races' latency histograms and averages their "
    "throughput."
)


def _refused_run(flag: str, what: str, reason: str, *, kind: Kind = Kind.VALUE) -> CliOption:
    return CliOption(
        name="osb_" + flag[2:].replace("-", "_"),
        flags=(flag,),
        commands=RACING,
        rally=False,
        kind=kind,
        help=f"OSB's {what}.",
        field="none (refused)",
        refused=reason,
    )


def _refused_create_workload(flag: str, what: str) -> CliOption:
    return CliOption(
        name="osb_" + flag[2:].replace("-", "_"),
        flags=(flag,),
        commands=("create-track",),
        rally=False,
        help=f"OSB's create-workload option: {what}.",
        field="none (refused)",
        refused="esbench create-track (OSB's create-workload) extracts every document of the given "
        "indices, as Rally's create-track does; it neither samples nor caps them nor writes custom "
        f"queries, so {flag} has no meaning here. Extract the full indices, then cut the corpus file "
        "(head -n N documents.json) and edit the track's operations for your queries.",
    )


OSB_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="database_type",
        flags=("--database-type",),
        commands=RACING,
        rally=False,
        type=click.Choice([OPENSEARCH]),
        help="OSB's target database backend: esbench races clusters that speak the Elasticsearch/OpenSearch "
        "REST API, so opensearch is the only value it takes (OSB's milvus and vespa adapters have no "
        "esbench counterpart).",
        field="none: checked (opensearch is what esbench always races)",
    ),
    _refused_run(
        "--grpc-target-hosts",
        "gRPC endpoints of the cluster",
        "esbench sends every request over HTTP (the REST API); it has no gRPC transport, so OSB's gRPC "
        "operations and endpoints cannot be raced. Race the REST API with --target-hosts=HOST:PORT.",
    ),
    _refused_run("--test-iterations", "number of times to run the workload", _ITERATIONS),
    _refused_run("--aggregate", "switch to aggregate the iterations' results", _ITERATIONS),
    _refused_run("--sleep-timer", "pause between iterations (s)", _ITERATIONS),
    _refused_run("--cancel-on-error", "stop the iterations after a failed one", _ITERATIONS, kind=Kind.FLAG),
    _refused_run("--load-test-qps", "load test up to a QPS", _REDLINE),
    _refused_run("--redline-test", "redline test up to a QPS", _REDLINE),
    *(
        _refused_run(flag, "redline test setting", _REDLINE)
        for flag in (
            "--redline-scale-step",
            "--redline-scaledown-percentage",
            "--redline-post-scaledown-sleep",
            "--redline-max-clients",
            "--redline-max-cpu-usage",
            "--redline-cpu-window-seconds",
            "--redline-cpu-check-interval",
        )
    ),
    _refused_run(
        "--visualize",
        "HTML charts of the run",
        "esbench writes its HTML report as the report itself rather than beside it: race with "
        "--report-format=html (and --report-file=FILE), or after the race run esbench visualize "
        "--test-run-id=ID [--output-path=FILE] (OSB's visualize command) on the stored race.",
        kind=Kind.FLAG,
    ),
    _refused_run(
        "--visualize-output-path",
        "path of the HTML charts",
        "esbench writes its HTML report as the report itself rather than beside it: race with "
        "--report-format=html --report-file=FILE, or after the race run esbench visualize "
        "--test-run-id=ID --output-path=FILE.",
    ),
    CliOption(
        name="test_run_id",
        flags=("--test-run-id",),
        osb=("-tid",),
        commands=("visualize",),
        rally=False,
        required=True,
        metavar="RACE",
        help="The stored race (test run) to chart: its id or a unique id prefix "
        "(see 'esbench list test-runs').",
        field="the race esbench visualize charts",
    ),
    CliOption(
        name="output_path",
        flags=("--output-path",),
        commands=("visualize",),
        rally=False,
        type=click.Path(dir_okay=False, path_type=Path),
        help="Where to write the HTML page [default: report.html in the race's directory].",
        field="the file esbench visualize writes",
    ),
    CliOption(
        name="percentiles",
        flags=("--percentiles",),
        commands=("compare",),
        rally=False,
        type=lambda: _params.percentiles_type("--percentiles"),
        metavar="P,P,...",
        help="OSB's compare option: the latency, service time and processing time percentiles compared, "
        "e.g. 50,90,99.9, recomputed from each race's histograms [default: the percentiles the races "
        "stored].",
        field="compare_races(percentiles=...)",
    ),
    _refused_create_workload("--custom-queries", "a JSON file of queries replacing match_all"),
    _refused_create_workload("--number-of-docs", "documents to extract per index (INDEX:COUNT ...)"),
    _refused_create_workload("--sample-frequency", "extract every Nth document per index (INDEX:N ...)"),
)
