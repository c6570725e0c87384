"""The one path from click options to :class:`~esbench.settings.RaceSettings`.

``race``, the planning commands (``sweep``, ``optimize``, ``find-max``, ``size``), ``query`` and
``load`` each declare a different subset of the race options; every one of them turns its option
values into settings here::

    source = track_source_from_options(opts)          # --track / --track-path / --track-bundle
    settings = race_settings(opts, source=source, track_params=...)

:func:`race_settings` pops each race option it knows from the click keyword arguments; an option
the command does not declare keeps the :class:`RaceSettings` default. What is left in ``opts`` is
the command's own business (``--quiet``, ``--task``, ``--fresh``...). Option values were already
checked while the command line was parsed (:mod:`esbench.cli._params`); what is checked here needs
more than one option or a network round trip (the track source rule, the Ray head).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import replace
from typing import Any

import click

from esbench.cli._osb_names import is_osb_command_line
from esbench.cli._provision_options import PROVISION_OPTION_NAMES, provision_settings
from esbench.cli._tags import parse_user_tags
from esbench.cli._track_source import pop_track_source
from esbench.cli.options.randomization import pop_query_randomization
from esbench.driver.coordinator.filters import parse_task_filters
from esbench.driver.settings import DriverSettings, LoadDriver, OnError
from esbench.reporting.formats import NumbersAlign, ReportFormat, ShowInReport
from esbench.reporting.percentiles import ReportPercentiles, parse_percentiles
from esbench.settings import (
    PIPELINE_BENCHMARK_ONLY,
    PIPELINE_FROM_DISTRIBUTION,
    Pipeline,
    RaceSettings,
    ReportSettings,
)
from esbench.telemetry.settings import TelemetrySettings
from esbench.tracksource import (
    RACE_RULE,
    TrackAtPath,
    TrackByName,
    TrackFromBundle,
    TrackInMemory,
    TrackSource,
    choose_track_source,
)

#: The click keyword arguments that name the track (popped by :func:`track_source_from_options`).
TRACK_OPTION_NAMES = ("track_name", "track_path", "track_bundle")


def track_source_from_options(opts: MutableMapping[str, Any], *, rule: str = RACE_RULE) -> TrackSource:
    """Pop ``--track``, ``--track-path``, ``--track-bundle`` and the track repository options from
    click keyword arguments and choose the one source they give.

    Raises:
        UserError: the rule of :func:`esbench.tracksource.choose_track_source` is broken.
    """
    repository = pop_track_source(opts)
    name, path, bundle = (opts.pop(key, None) for key in TRACK_OPTION_NAMES)
    return choose_track_source(name=name, path=path, bundle=bundle, repository=repository, rule=rule)


def race_settings(
    opts: MutableMapping[str, Any],
    *,
    source: TrackSource | None,
    track_params: Mapping[str, object] | None = None,
    task_overrides: Mapping[str, object] | None = None,
) -> RaceSettings:
    """The race settings of a command's click keyword arguments (the race options are popped).

    Args:
        opts: click keyword arguments; every race option present is popped.
        source: the track (see :func:`track_source_from_options`); a bundle is unpacked into the
            esbench home here. None: the caller adds a track in memory (``query``, ``load``).
        track_params: parsed ``--track-params`` (each command parses its own flavour of it).
        task_overrides: task name -> ``TaskOverride`` (the planning commands' ``--time-period``...).

    Raises:
        UserError / ConfigError: a value the command line could not check alone (hosts, car
            params, client options, tags, telemetry devices and parameters).
        ConnectionFailed: ``--load-driver=ray`` with a Ray head that does not answer.
        DataError: a damaged bundle (:func:`esbench.corpus.bundle.unpack_bundle`).
    """
    _peer_defaults(opts)
    track = _unpacked(source)
    driver = _driver_settings(opts)
    offline = bool(opts.pop("offline", False))
    pipeline = opts.pop("pipeline", None)
    telemetry, report = TelemetrySettings(), ReportSettings()
    if "telemetry" in opts:
        from esbench.telemetry.cli import telemetry_settings

        telemetry = telemetry_settings(opts.pop("telemetry"), opts.pop("telemetry_params"))
    if "report_format" in opts:
        report = ReportSettings(
            fmt=ReportFormat(opts.pop("report_format")),
            file=opts.pop("report_file"),
            show_processing_time=opts.pop("show_processing_time"),
            numbers_align=NumbersAlign(opts.pop("report_numbers_align", NumbersAlign.DECIMAL)),
            show_in_report=ShowInReport(opts.pop("show_in_report", ShowInReport.AVAILABLE)),
            percentiles=_report_percentiles(opts),
        )
    from esbench.driver.transport.clusters import cluster_targets

    # Rally's multi-cluster forms (issue 39): the default cluster is the target, the others the driver's.
    clusters = cluster_targets(opts.pop("target_hosts", None), opts.pop("client_options", ""))
    settings = RaceSettings(
        track_params=dict(track_params or {}),
        challenge=opts.pop("challenge", None),
        target_hosts=clusters.hosts,
        pipeline=Pipeline(pipeline) if pipeline else None,
        provision=provision_settings(
            **{k: opts.pop(k) for k in PROVISION_OPTION_NAMES if k in opts}, offline=offline
        ),
        client_options=clusters.options,
        driver=replace(driver, other_clusters=clusters.others),
        user_tags=parse_user_tags(opts.pop("user_tag", "")),
        test_mode=bool(opts.pop("test_mode", False)),
        offline=offline,
        task_overrides=dict(task_overrides or {}),
        metrics_store=opts.pop("metrics_store", None),
        report=report,
        telemetry=telemetry,
        race_id=opts.pop("race_id", None),
        kill_running_processes=bool(opts.pop("kill_running_processes", False)),
    )
    return _with_track(settings, track)


def _peer_defaults(opts: MutableMapping[str, Any]) -> None:
    """The pipeline and the product Rally and OSB choose when the command line does not say:

    * ``--distribution-version`` without ``--pipeline``: ``from-distribution``, even beside
      ``--target-hosts`` (Rally 2.13 ``esrally/racecontrol.py`` ``run``, OSB 2.4.0
      ``osbenchmark/test_run_orchestrator.py`` ``run``); esbench then says that the two cannot be
      combined rather than race the cluster at the hosts with the version unused;
    * on an OSB user's command line (:func:`~esbench.cli._osb_names.is_osb_command_line`: OSB's
      command names, or ``--workload``), neither: ``benchmark-only`` (racing ``--target-hosts``,
      else 127.0.0.1:9200), where Rally's ``race`` would build from sources and esbench's
      ``race`` provisions;
    * on an OSB user's command line, a provisioned cluster is OpenSearch unless
      ``--distribution-flavor`` says otherwise: OSB's ``--distribution-version=2.18.0`` names an
      OpenSearch version (OSB 2.4.0 ``osbenchmark/builder``).

    Every command that takes the race options gets the same rule (``race``, the planning commands,
    ``query``, ``load``); outside a click command (the Python API) nothing is chosen. A Rally or
    OSB user changes only the program's name."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    osb = is_osb_command_line()

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) not in (click.core.ParameterSource.DEFAULT, None)

    if not given("pipeline"):
        if given("distribution_version"):
            opts["pipeline"] = PIPELINE_FROM_DISTRIBUTION
        elif osb and not given("distribution_path"):
            opts["pipeline"] = PIPELINE_BENCHMARK_ONLY
    if osb and not given("distribution_flavor"):
        from esbench.provision.flavors import DistributionFlavor

        opts["distribution_flavor"] = DistributionFlavor.OPENSEARCH.value


def _report_percentiles(opts: MutableMapping[str, Any]) -> ReportPercentiles | None:
    """OSB's ``--latency-percentiles`` / ``--throughput-percentiles`` (None when neither is given:
    Rally's percentile rows)."""
    latency, throughput = opts.pop("latency_percentiles", None), opts.pop("throughput_percentiles", None)
    if latency is None and throughput is None:
        return None
    return ReportPercentiles(
        latency=parse_percentiles(latency, option="--latency-percentiles") if latency is not None else None,
        throughput=parse_percentiles(throughput or "", option="--throughput-percentiles"),
    )


def _unpacked(source: TrackSource | None) -> TrackByName | TrackAtPath | TrackInMemory | None:
    """``source`` with a bundle unpacked into the esbench home (first, as the race always did)."""
    if not isinstance(source, TrackFromBundle):
        return source
    from esbench.corpus.bundle import unpack_bundle

    return TrackAtPath(unpack_bundle(source.bundle)[0])


def _with_track(
    settings: RaceSettings, source: TrackByName | TrackAtPath | TrackInMemory | None
) -> RaceSettings:
    """``settings`` with the fields that hold ``source`` (None: the caller adds a track in memory)."""
    match source:
        case None:
            return settings
        case TrackByName(name=name, repository=repository):
            return replace(settings, track_name=name, track_source=repository)
        case TrackAtPath(path=path):
            return replace(settings, track_path=path)
        case TrackInMemory(track=track):
            return replace(settings, track=track)


def _driver_settings(opts: MutableMapping[str, Any]) -> DriverSettings:
    """``--on-error``, the task filters, workers and where they run (a Ray head is asked now,
    before the track and corpora are prepared: one that does not answer fails in seconds)."""
    include, exclude = (
        tuple(s.strip() for s in opts.pop(name, "").split(",") if s.strip())
        for name in ("include_tasks", "exclude_tasks")
    )
    parse_task_filters(include, option="--include-tasks")
    parse_task_filters(exclude, option="--exclude-tasks")
    load_driver, ray_address = opts.pop("load_driver", None), opts.pop("ray_address", None)
    driver_hosts = tuple(h.strip() for h in opts.pop("load_driver_hosts", "").split(",") if h.strip())
    if load_driver is not None or driver_hosts:  # else local workers: no head to ask
        _check_ray_head(load_driver, driver_hosts, ray_address)
    return DriverSettings(
        on_error=OnError(opts.pop("on_error", OnError.CONTINUE)),
        include_tasks=include,
        exclude_tasks=exclude,
        workers=opts.pop("load_driver_workers", None),
        load_driver=LoadDriver(load_driver) if load_driver else None,
        ray_address=ray_address,
        load_driver_hosts=driver_hosts,
        profiling=bool(opts.pop("enable_driver_profiling", False)),
        enable_assertions=bool(opts.pop("enable_assertions", False)),
        query_randomization=pop_query_randomization(opts),
    )


def _check_ray_head(load_driver: str | None, driver_hosts: tuple[str, ...], ray_address: str | None) -> None:
    from esbench.driver.coordinator.pools.factory import resolve_load_driver
    from esbench.driver.coordinator.pools.ray_pool import check_ray_head, parse_ray_address

    kind = resolve_load_driver(load_driver, driver_hosts)
    address = (ray_address or os.environ.get("RAY_ADDRESS")) if kind is LoadDriver.RAY else None
    if address:
        check_ray_head(*parse_ray_address(address, option="--ray-address/RAY_ADDRESS"))
