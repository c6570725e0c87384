"""Typed settings of a race, built once by the CLI (or by API users) and passed down.

Each stage receives only the part it needs: the driver gets :class:`DriverSettings` and
:class:`ClientOptions`, provisioning gets :class:`ProvisionSettings`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from esbench.driver.settings import ClientOptions, DriverSettings
from esbench.exceptions import UserError
from esbench.provision import ProvisionSettings
from esbench.reporting.formats import NumbersAlign, ReportFormat, ShowInReport
from esbench.reporting.percentiles import ReportPercentiles
from esbench.telemetry.settings import TelemetrySettings
from esbench.track.model import Track
from esbench.track.repository import TrackRepositorySettings


class Pipeline(StrEnum):
    """``--pipeline`` (Rally's pipelines that esbench supports)."""

    #: Race against the cluster at ``--target-hosts``.
    BENCHMARK_ONLY = "benchmark-only"
    #: Provision a cluster from a distribution, race against it, stop it.
    FROM_DISTRIBUTION = "from-distribution"


PIPELINE_BENCHMARK_ONLY = Pipeline.BENCHMARK_ONLY
PIPELINE_FROM_DISTRIBUTION = Pipeline.FROM_DISTRIBUTION
PIPELINES = tuple(p.value for p in Pipeline)

REPORT_FORMATS = tuple(f.value for f in ReportFormat)


@dataclass(frozen=True, kw_only=True)
class ReportSettings:
    """How the summary is shown: ``fmt`` (a :class:`ReportFormat`), optional file to write it to,
    the alignment of its numbers (:class:`NumbersAlign`) and which rows it shows
    (:class:`ShowInReport`)."""

    fmt: ReportFormat = ReportFormat.TEXT
    file: Path | None = None
    show_processing_time: bool = False
    numbers_align: NumbersAlign = NumbersAlign.DECIMAL
    show_in_report: ShowInReport = ShowInReport.AVAILABLE
    #: OSB's ``--latency-percentiles`` / ``--throughput-percentiles`` (None: Rally's rows).
    percentiles: ReportPercentiles | None = None


_RACE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def check_race_id(race_id: str, *, option: str = "--race-id") -> str:
    """``race_id`` if it can name a new race (or installation, ``option``): 1 to 128 letters,
    digits, ``.``, ``_`` or ``-``, starting with a letter or digit (it names the race's directory
    under <esbench home>/races and its documents in a metrics store; Rally's ``--race-id`` takes any
    text, esbench needs a file name).

    Raises:
        UserError: any other text.
    """
    if not _RACE_ID.fullmatch(race_id):
        raise UserError(
            f"{option} {race_id!r} is not a usable id: use 1 to 128 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (a UUID such as 0e5b6c9a-... is fine)."
        )
    return race_id


@dataclass(frozen=True, kw_only=True)
class RaceSettings:
    """Everything a race needs.

    Attributes:
        track_name / track_path: exactly one is set (``--track`` / ``--track-path``).
        track_params: parsed ``--track-params``.
        challenge: challenge name; None = the track's default challenge.
        target_hosts: ``host:port`` strings (``--target-hosts``); empty = provision a cluster.
        pipeline: ``benchmark-only`` or ``from-distribution``; None = chosen from ``target_hosts``.
        provision: settings for the from-distribution pipeline.
        client_options: Elasticsearch client options (credentials, TLS, timeouts).
        driver: load-driver settings (on-error, task filters, worker processes, test mode).
        user_tags: ``--user-tags`` key/values stored with the race, typed as Rally stores them
            (:attr:`esbench.records.RaceResult.user_tags`).
        test_mode: Rally's ``--test-mode`` (``-1k`` corpora, capped iterations and time periods).
        offline: never try to download anything.
        task_overrides: task name -> :class:`esbench.track.overrides.TaskOverride` (clients,
            target-throughput, bulk-size, time periods) applied to the loaded track (capacity planning).
        report: summary output.
        metrics_store: URL of an Elasticsearch metrics store to export the race to, or None.
        track_source: the track repository, revision and branch of a named track.
        track: a track model built in memory (``esbench query``/``load``); when set it is raced
            instead of loading ``track_name``/``track_path``.
        telemetry: telemetry devices sampled during the race (``--telemetry``, ``--telemetry-params``).
        race_id: the id of the new race (``--race-id``, see :func:`check_race_id`); None: a new UUID.
        kill_running_processes: before the race, stop the user's other esbench races and the nodes
            esbench started for races (``--kill-running-processes``).
    """

    track_name: str | None = None
    track_path: Path | None = None
    track_params: Mapping[str, Any] = field(default_factory=dict)
    challenge: str | None = None
    target_hosts: tuple[str, ...] = ()
    pipeline: Pipeline | None = None
    provision: ProvisionSettings = field(default_factory=ProvisionSettings)
    client_options: ClientOptions = field(default_factory=ClientOptions)
    driver: DriverSettings = field(default_factory=DriverSettings)
    user_tags: Mapping[str, Any] = field(default_factory=dict)
    test_mode: bool = False
    offline: bool = False
    task_overrides: Mapping[str, Any] = field(default_factory=dict)
    report: ReportSettings = field(default_factory=ReportSettings)
    metrics_store: str | None = None
    track_source: TrackRepositorySettings = field(default_factory=TrackRepositorySettings)
    track: Track | None = None
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)
    race_id: str | None = None
    kill_running_processes: bool = False
