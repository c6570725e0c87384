"""The end-of-race summary report: Rally's ``Metric | Task | Value | Unit`` table.

Rows, names, units and number formatting follow Rally's ``SummaryReporter`` (esrally ``reporter.py``):
cluster rows first (see :mod:`esbench.metrics.cluster`), then for every task shown in the report,
in schedule order: ``Min/Mean/Median/Max Throughput`` (``"%.2f"``), ``<p>th percentile latency``,
``<p>th percentile service time`` (and ``processing time`` on request) in ms for the percentiles the
sample count allows, and ``error rate`` in % (``"%.2f"``). Tasks with ``include_in_reporting=False``
(administrative operations) are hidden unless a request of theirs failed (:attr:`TaskResult.reported`,
Rally's ``GlobalStatsCalculator``). Rows without a value are left out, as in Rally; so are the
throughput rows of a task without throughput (mean 0: every request failed), as Rally's
``summary_stats`` drops a mean or median of 0.

Where esbench differs: throughput values are per-second windows rather than Rally's running
average (docs/metrics.md), and the warnings also name the error types and histogram overflows.

OSB's ``--latency-percentiles`` and ``--throughput-percentiles`` choose other percentile rows
(:mod:`esbench.reporting.percentiles`).
"""

from __future__ import annotations

from collections.abc import Iterable

from esbench.records import STATUS_COMPLETED, RaceResult, TaskResult, describe_line
from esbench.reporting import failures
from esbench.reporting.formats import (
    Cell,
    NumbersAlign,
    ShowInReport,
    check_format,
    csv_table,
    dump_json,
    json_rows,
    pipe_table,
)
from esbench.reporting.percentiles import (
    ReportPercentiles,
    latency_percentiles_ms,
    throughput_percentiles,
    wanted_labels,
)

HEADERS: tuple[str, str, str, str] = ("Metric", "Task", "Value", "Unit")

#: Percentile labels in report order (the subset shown depends on the sample count).
PERCENTILES: tuple[str, ...] = ("50", "90", "99", "99.9", "99.99", "100")

Row = tuple[str, str, Cell, str]


def _fmt2(v: float) -> str:
    return f"{v:.2f}"


def cluster_rows(race: RaceResult) -> list[Row]:
    """The cluster-level rows of ``race`` (values as stored: min, s, GB, counts)."""
    return [(m.name, m.task, m.value, m.unit) for m in race.cluster_metrics]


def _percentile_rows(
    name: str,
    task: str,
    values: dict[str, float],
    show: ShowInReport,
    labels: tuple[str, ...] = PERCENTILES,
    unit: str = "ms",
) -> list[Row]:
    # Rally's _report_percentiles: nothing without any percentile; with all-percentiles/all, every
    # percentile row, without value (and unit) where the sample count was too small for it.
    if show is ShowInReport.AVAILABLE or not values:
        return [(f"{p}th percentile {name}", task, values[p], unit) for p in labels if p in values]
    return [(f"{p}th percentile {name}", task, values.get(p), unit if p in values else "") for p in labels]


def task_rows(
    task: TaskResult,
    *,
    show_processing_time: bool = False,
    show: ShowInReport = ShowInReport.AVAILABLE,
    percentiles: ReportPercentiles | None = None,
) -> list[Row]:
    """The rows of one task, in Rally's order; ``show`` is Rally's ``--show-in-report``
    (:class:`~esbench.reporting.formats.ShowInReport`): ``all`` keeps throughput rows without a value;
    ``percentiles``: OSB's latency and throughput percentiles (None: Rally's rows)."""
    percentiles = percentiles or ReportPercentiles()
    rows: list[Row] = []
    # Rally's summary_stats keeps the four values only when the mean is truthy: a task whose every
    # request failed (weight 0) shows latencies and its error rate, no throughput.
    for label, value in (
        ("Min Throughput", task.throughput_min),
        ("Mean Throughput", task.throughput_mean),
        ("Median Throughput", task.throughput_median),
        ("Max Throughput", task.throughput_max),
    ):
        if value is not None and task.throughput_mean:
            rows.append((label, task.task, _fmt2(value), task.throughput_unit))
        elif show is ShowInReport.ALL:
            rows.append((label, task.task, None, ""))
    if percentiles.throughput and task.throughput_mean:
        rows += _percentile_rows(
            "throughput",
            task.task,
            throughput_percentiles(task, percentiles.throughput),
            show,
            wanted_labels(percentiles.throughput),
            task.throughput_unit,
        )
    if percentiles.latency is not None:
        latency = latency_percentiles_ms(task, percentiles.latency)
        rows += _percentile_rows("latency", task.task, latency, show, wanted_labels(percentiles.latency))
    else:
        rows += _percentile_rows("latency", task.task, task.latency_ms, show)
    rows += _percentile_rows("service time", task.task, task.service_time_ms, show)
    if show_processing_time:
        rows += _percentile_rows("processing time", task.task, task.processing_time_ms, show)
    rows.append(("error rate", task.task, _fmt2(task.error_rate * 100.0), "%"))
    return rows


def reported_tasks(race: RaceResult) -> list[TaskResult]:
    """The tasks shown in the report (:attr:`TaskResult.reported`: ``include_in_reporting``, or a
    failed request), in schedule order."""
    return [t for t in race.tasks if t.reported]


def summary_rows(
    race: RaceResult,
    *,
    show_processing_time: bool = False,
    show: ShowInReport = ShowInReport.AVAILABLE,
    percentiles: ReportPercentiles | None = None,
) -> list[Row]:
    """All rows of the summary table: cluster rows, then each reported task's rows (``show`` and
    ``percentiles``: see :func:`task_rows`; cluster rows are those the race recorded, whatever
    ``show`` says)."""
    rows = cluster_rows(race)
    for task in reported_tasks(race):
        rows += task_rows(task, show_processing_time=show_processing_time, show=show, percentiles=percentiles)
    return rows


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def summary_warnings(race: RaceResult) -> list[str]:
    """Warning lines for the end of the report.

    - error rate > 0 (also for hidden tasks: a failing administrative task can invalidate a race),
      with the failed requests by error type, the most frequent reason, for bulk the failed
      documents by status, and the race log's path when it is on this machine;
    - a reported task without measurement samples (Rally: "No throughput metrics available");
    - measurement values outside the histogram range;
    - a race that did not complete.
    """
    warnings: list[str] = []
    log_hint = failures.log_hint(race)
    if race.status != STATUS_COMPLETED:
        reason = f": {race.error.rstrip('.')}" if race.error else ""
        warnings.append(
            f"The race {race.status}{reason}. The report covers only the tasks that ran.{log_hint}"
        )
    for t in race.tasks:
        if t.error_count:
            types = _counts(t.errors_by_type)
            documents = (
                f" Failed documents by status: {_counts(t.item_errors_by_status)}."
                if t.item_errors_by_status
                else ""
            )
            top = t.error_descriptions[0] if t.error_descriptions else None
            why = (
                f" Most frequent reason ({top.count} requests): {describe_line(top)}."
                if top is not None
                else ""
            )
            warnings.append(
                f"Error rate is {round(t.error_rate * 100, 2)}% for task '{t.task}' "
                f"({t.error_count} of {t.sample_count} requests failed; {types}).{why}{documents}"
                + (log_hint or " Please check the logs.")
            )
        if t.include_in_reporting and t.sample_count == 0:
            cause = (
                "The benchmark ended already during warmup."
                if t.warmup_sample_count
                else "The task recorded no samples."
            )
            warnings.append(f"No throughput metrics available for [{t.task}]. Likely cause: {cause}")
        if t.overflow_count:
            warnings.append(
                f"{t.overflow_count} measurement values of task '{t.task}' were outside the histogram range "
                "and are missing from the percentiles."
            )
    return warnings


def _kv(items: Iterable[tuple[str, object]]) -> str:
    return ", ".join(f"{k}={v}" for k, v in items)


def header_fields(race: RaceResult) -> list[tuple[str, str]]:
    """(label, value) pairs describing the race, for the report header."""
    fields = [
        ("Race id", race.race_id),
        ("Race timestamp", race.timestamp),
        ("Track", race.track + (f" ({_kv(sorted(race.track_params.items()))})" if race.track_params else "")),
        ("Challenge", race.challenge),
        ("Car", race.car + (f" ({_kv(sorted(race.car_params.items()))})" if race.car_params else "")),
        ("Pipeline", race.pipeline),
    ]
    if race.cluster_version or race.cluster_nodes:
        nodes = (
            f", {race.cluster_nodes} node{'s' if race.cluster_nodes != 1 else ''}"
            if race.cluster_nodes
            else ""
        )
        product = "OpenSearch" if race.cluster_flavor == "opensearch" else "Elasticsearch"
        fields.append(("Cluster", f"{product} {race.cluster_version or 'unknown version'}{nodes}"))
    if race.user_tags:
        fields.append(("User tags", _kv(sorted(race.user_tags.items()))))
    if race.test_mode:
        fields.append(("Test mode", "yes (results are not representative)"))
    status = (
        race.status if race.status == STATUS_COMPLETED or not race.error else f"{race.status}: {race.error}"
    )
    fields.append(("Status", status))
    if race.duration_s:
        fields.append(("Duration", f"{race.duration_s:.1f} s"))
    return fields


#: The race fields of the JSON summary's ``race`` object, in output order.
JSON_RACE_FIELDS: tuple[str, ...] = (
    "race_id",
    "timestamp",
    "track",
    "track_params",
    "challenge",
    "car",
    "car_params",
    "user_tags",
    "pipeline",
    "distribution_version",
    "cluster_version",
    "cluster_nodes",
    "cluster_flavor",
    "test_mode",
    "status",
    "error",
    "duration_s",
)


def render_summary(
    race: RaceResult,
    *,
    fmt: str = "text",
    show_processing_time: bool = False,
    numbers_align: NumbersAlign = NumbersAlign.DECIMAL,
    show: ShowInReport = ShowInReport.AVAILABLE,
    percentiles: ReportPercentiles | None = None,
) -> str:
    """The summary report of ``race`` as text.

    Args:
        race: the race result.
        fmt: ``text`` (header, Rally's console table, the failed requests by reason
            (:mod:`esbench.reporting.failures`), ``[WARNING]`` lines), ``markdown`` (header list,
            pipe tables, warnings list), ``csv`` (the table, plus one ``failed requests: <reason>``
            row per top failure) or ``json`` (``{"race": {race_id, timestamp, track, ...},
            "metrics": [{"metric", "task", "value", "unit"}...], "errors": [{"task", "count",
            "error_type", "http_status", "es_type", "reason"}...], "warnings": [...]}``, values as
            numbers).
        show_processing_time: add the processing time percentile rows (Rally's
            ``reporting.output.processingtime`` setting; off by default as in Rally).
        numbers_align: alignment of the numbers of the text and markdown table (Rally's
            ``--report-numbers-align``, tabulate's ``numalign``).
        show: which rows are shown (Rally's ``--show-in-report``, :func:`task_rows`).
        percentiles: OSB's ``--latency-percentiles``/``--throughput-percentiles``
            (:class:`~esbench.reporting.percentiles.ReportPercentiles`); None: Rally's rows.

    Raises:
        ConfigError: unknown ``fmt``.
    """
    check_format(fmt)
    rows = summary_rows(race, show_processing_time=show_processing_time, show=show, percentiles=percentiles)
    warnings = summary_warnings(race)
    if fmt == "csv":
        return csv_table(HEADERS, rows + failures.failure_csv_rows(race))
    if fmt == "json":
        return dump_json(
            {
                "race": race.to_dict(JSON_RACE_FIELDS),
                "metrics": json_rows(HEADERS, rows),
                "errors": failures.failure_json(race),
                "warnings": warnings,
            }
        )
    table = pipe_table(HEADERS, rows, numalign=str(numbers_align))
    header = header_fields(race)
    failure_table = failures.failure_table(race, markdown=fmt == "markdown")
    if fmt == "markdown":
        parts = ["\n".join(f"- **{k}**: {v}" for k, v in header), table]
        if failure_table:
            parts.append(failure_table)
        if warnings:
            parts.append("**Warnings**\n\n" + "\n".join(f"- {w}" for w in warnings))
        return "\n\n".join(parts) + "\n"
    width = max(len(k) for k, _ in header) + 1
    parts = ["\n".join(f"{k + ':':<{width}} {v}" for k, v in header), table]
    if failure_table:
        parts.append(failure_table)
    if warnings:
        parts.append("\n".join(f"[WARNING] {w}" for w in warnings))
    return "\n\n".join(parts) + "\n"
