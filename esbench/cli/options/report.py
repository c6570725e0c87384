"""Options of the summary report, the metrics store, telemetry and user tags (Rally's
``--report-*``, ``--show-in-report``, ``--telemetry*``, ``--user-tags`` in ``esrally/rally.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import _params
from esbench.cli.options.cluster import RACING_ANY
from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.track import PLANNING, RACING
from esbench.reporting.formats import NumbersAlign, ReportFormat, ShowInReport

REPORT_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="user_tag",
        flags=("--user-tags", "--user-tag"),
        commands=(*RACING_ANY, *PLANNING),
        default="",
        type=_params.USER_TAGS,
        help="Tags stored with the race, as Rally takes them: key:value,... (values typed: 4 is a number, "
        "true a boolean, 'x' text), a JSON object or a .json file (also spelt --user-tag).",
        field="RaceSettings.user_tags",
    ),
    CliOption(
        name="report_format",
        flags=("--report-format",),
        osb=("--results-format",),
        commands=RACING_ANY,
        type=click.Choice([f.value for f in ReportFormat]),
        default=ReportFormat.TEXT.value,
        show_default=True,
        help="How the summary is shown (Rally's and OSB's are markdown and csv; OSB's default is "
        "markdown, esbench's text).",
        field="RaceSettings.report.fmt",
    ),
    CliOption(
        name="report_numbers_align",
        flags=("--report-numbers-align",),
        osb=("--results-numbers-align",),
        commands=RACING,
        type=click.Choice([a.value for a in NumbersAlign]),
        default=NumbersAlign.DECIMAL.value,
        show_default=True,
        help="Alignment of the numbers in the text and markdown summary (right, center, left, decimal; "
        "Rally's default decimal, OSB's right).",
        field="RaceSettings.report.numbers_align",
    ),
    CliOption(
        name="show_in_report",
        flags=("--show-in-report",),
        osb=("--show-in-results",),
        commands=RACING,
        type=click.Choice([s.value for s in ShowInReport]),
        default=ShowInReport.AVAILABLE.value,
        show_default=True,
        help="Which rows the summary shows: available (those with a value), all-percentiles (every "
        "percentile row, '-' where a task has too few samples) or all (every row of every task).",
        field="RaceSettings.report.show_in_report",
    ),
    CliOption(
        name="report_file",
        flags=("--report-file",),
        osb=("--results-file",),
        commands=RACING_ANY,
        type=click.Path(dir_okay=False, path_type=Path),
        help="Append the summary also to this file (it is printed too, as Rally and OSB do; the json "
        "format, which they lack, is written anew).",
        field="RaceSettings.report.file",
    ),
    CliOption(
        name="latency_percentiles",
        flags=("--latency-percentiles",),
        commands=RACING,
        rally=False,
        type=lambda: _params.percentiles_type("--latency-percentiles"),
        metavar="P,P,...",
        help="OSB's option: the latency percentiles the summary shows, e.g. 50,90,99.9 (each kept when "
        "the sample count makes it distinct, OSB's rule) [default: Rally's 50,90,99,99.9,99.99,100 rule].",
        field="RaceSettings.report.percentiles.latency",
    ),
    CliOption(
        name="throughput_percentiles",
        flags=("--throughput-percentiles",),
        commands=RACING,
        rally=False,
        type=lambda: _params.percentiles_type("--throughput-percentiles"),
        metavar="P,P,...",
        help="OSB's option: throughput percentiles shown after Max Throughput, over the per-second "
        "throughput windows, e.g. 25,75 [default: none].",
        field="RaceSettings.report.percentiles.throughput",
    ),
    CliOption(
        name="show_processing_time",
        flags=("--show-processing-time",),
        commands=RACING_ANY,
        rally=False,
        kind=Kind.FLAG,
        help="Add processing-time percentiles to the report.",
        field="RaceSettings.report.show_processing_time",
    ),
    CliOption(
        name="metrics_store",
        flags=("--metrics-store",),
        commands=RACING_ANY,
        rally=False,
        type=_params.URL,
        envvar="ESBENCH_METRICS_STORE",
        help="URL of an Elasticsearch cluster to export the race to (also ESBENCH_METRICS_STORE).",
        field="RaceSettings.metrics_store",
    ),
    CliOption(
        name="telemetry",
        flags=("--telemetry",),
        commands=RACING,
        default="",
        type=_params.TELEMETRY,
        help="Telemetry devices sampled during the race, e.g. node-stats,os or a JSON array "
        "(see 'esbench list telemetry').",
        field="RaceSettings.telemetry",
    ),
    CliOption(
        name="telemetry_params",
        flags=("--telemetry-params",),
        commands=RACING,
        default="",
        type=lambda: _params.params_type("--telemetry-params"),
        help="Telemetry device parameters: k:v list, inline JSON or a .json file "
        "(node-stats-sample-interval:2).",
        field="RaceSettings.telemetry",
    ),
)
