"""The layouts of the Elasticsearch/OpenSearch metrics store: Rally's and OpenSearch Benchmark's.

OpenSearch Benchmark (OSB) is a fork of Rally; its metrics store has Rally's shape under other
names. A :class:`StoreLayout` holds everything that differs, so that one writer
(:mod:`esbench.results.store_writer`), one set of templates (:mod:`esbench.results.store_templates`),
one document builder (:mod:`esbench.results.store_documents`) and one reader
(:mod:`esbench.results.es_read`, :mod:`esbench.results.store_races`) serve both:

========================  ==============================  ====================================
what                      Rally 2.13 (:data:`RALLY`)      OSB 2.4.0 (:data:`OSB`)
========================  ==============================  ====================================
one document per race     ``rally-races-YYYY-MM``         ``benchmark-test-runs-YYYY-MM``
per metric and task       ``rally-results-YYYY-MM``       ``benchmark-results-YYYY-MM``
per sample                ``rally-metrics-YYYY-MM``       ``benchmark-metrics-YYYY-MM``
annotations               ``rally-annotations``           (none)
race id / timestamp       ``race-id``/``race-timestamp``  ``test-run-id``/``test-run-timestamp``
track / challenge / car   ``track``/``challenge``/``car`` ``workload``/``test_procedure``/
                                                          ``cluster-config-instance``
tool version              ``rally-version``               ``benchmark-version``
sample time               ``relative-time`` (ms)          ``relative-time-ms``
templates                 composable (``_index_template``)  legacy (``_template``)
========================  ==============================  ====================================

Sources: Rally's ``esrally/metrics.py`` and ``esrally/resources/*-template.json``; OSB's
``osbenchmark/metrics.py`` (``OsMetricsStore``, ``OsTestRunStore``, ``OsResultsStore``,
``TestRun.as_dict``, ``GlobalStats``) and ``osbenchmark/resources/*-template.json``. Both write
race timestamps as ``20261128T123750Z`` (Rally's ``TIMESTAMP_FMT``, OSB's ``time.to_iso8601``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

#: Rally's one index of annotations (not monthly; OSB has none).
ANNOTATIONS_INDEX = "rally-annotations"

#: The race timestamp format of both layouts, in documents and on the command line
#: (``20261128T123750Z``).
RACE_TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"


class StoreIndex(StrEnum):
    """The kinds of monthly indices of a metrics store."""

    RACES = "races"
    RESULTS = "results"
    METRICS = "metrics"


class LayoutName(StrEnum):
    """The layouts esbench writes and reads."""

    RALLY = "rally"
    OSB = "osb"


@dataclass(frozen=True, kw_only=True)
class FieldNames:
    """The names of the fields that differ between the layouts (every other field, such as
    ``environment``, ``pipeline``, ``user-tags``, ``name``, ``value``, ``unit``, ``sample-type``,
    ``task``, ``operation``, ``results``, ``cluster.distribution-version``, is named alike)."""

    race_id: str
    race_timestamp: str
    track: str
    challenge: str
    car: str
    track_params: str
    car_params: str
    track_revision: str
    tool_version: str
    tool_revision: str
    #: ms since the start of the task (samples) or of the race, in metrics documents.
    relative_time: str
    #: In the race document's ``cluster`` object: Rally's team revision, OSB's cluster config revision.
    config_revision: str


@dataclass(frozen=True, kw_only=True)
class StoreLayout:
    """One layout: index and template names, field names and the shape details that differ.

    Attributes:
        name: :class:`LayoutName`. tool / tool_version: the peer whose layout this is, written as
            its version field (``rally-version: 2.13.0``) and shown as the tool of a race read back.
        prefixes: kind -> index name prefix without the dash (also the template name).
        annotations_index: the one annotations index, None if the tool has none (OSB).
        fields: :class:`FieldNames`.
        composable_templates: put templates with ``PUT _index_template`` (Rally,
            ``EsClient.put_template``) or the legacy ``PUT _template`` (OSB, ``OsClient.put_template``).
        metrics_keyword_ignore_above: ``ignore_above`` of the strings of metrics documents
            (Rally 8191, OSB none).
        error_description_mapping: the metrics template maps ``meta.error-description`` (Rally).
        results_keys: the keys of a race's ``results`` (``GlobalStats.as_dict``), in the tool's order.
        op_metrics_keys: the keys of one ``results.op_metrics`` entry (``GlobalStats.add_op_metrics``).
        challenge_always: the race document has the challenge field even when it is null (OSB's
            ``TestRun.as_dict`` always sets ``test_procedure``; Rally's only when there is one).
    """

    name: LayoutName
    tool: str
    tool_version: str
    prefixes: dict[StoreIndex, str]
    annotations_index: str | None
    fields: FieldNames
    composable_templates: bool
    metrics_keyword_ignore_above: int | None
    error_description_mapping: bool
    results_keys: tuple[str, ...]
    op_metrics_keys: tuple[str, ...]
    challenge_always: bool

    def monthly_index(self, kind: StoreIndex, race_timestamp: datetime) -> str:
        """The index a document of ``kind`` goes to: ``<prefix>-YYYY-MM`` of the race timestamp (a
        UTC :class:`datetime`), as both tools' ``index_name`` methods compute it."""
        return f"{self.prefixes[kind]}-{race_timestamp:%Y-%m}"

    def index_pattern(self, kind: StoreIndex) -> str:
        """The pattern that matches every month of ``kind`` (``rally-races-*``...), for searches."""
        return f"{self.prefixes[kind]}-*"

    def template_name(self, kind: StoreIndex) -> str:
        """The tool's name of the index template of ``kind`` (the prefix: ``benchmark-test-runs``)."""
        return self.prefixes[kind]


_SHARD_TIMES = (
    "total_time",
    "total_time_per_shard",
    "indexing_throttle_time",
    "indexing_throttle_time_per_shard",
    "merge_time",
    "merge_time_per_shard",
    "merge_count",
    "refresh_time",
    "refresh_time_per_shard",
    "refresh_count",
    "flush_time",
    "flush_time_per_shard",
    "flush_count",
    "merge_throttle_time",
    "merge_throttle_time_per_shard",
    "ml_processing_time",
)
_GC = ("young_gc_time", "young_gc_count", "old_gc_time", "old_gc_count")
_SEGMENT_MEMORY = (
    "memory_segments",
    "memory_doc_values",
    "memory_terms",
    "memory_norms",
    "memory_points",
    "memory_stored_fields",
)
_TRANSFORMS = (
    "total_transform_search_times",
    "total_transform_index_times",
    "total_transform_processing_times",
    "total_transform_throughput",
)

#: Rally 2.13's layout (esrally/metrics.py; esrally/resources/*-template.json).
RALLY = StoreLayout(
    name=LayoutName.RALLY,
    tool="Rally",
    tool_version="2.13.0",
    prefixes={
        StoreIndex.RACES: "rally-races",
        StoreIndex.RESULTS: "rally-results",
        StoreIndex.METRICS: "rally-metrics",
    },
    annotations_index=ANNOTATIONS_INDEX,
    fields=FieldNames(
        race_id="race-id",
        race_timestamp="race-timestamp",
        track="track",
        challenge="challenge",
        car="car",
        track_params="track-params",
        car_params="car-params",
        track_revision="track-revision",
        tool_version="rally-version",
        tool_revision="rally-revision",
        relative_time="relative-time",
        config_revision="team-revision",
    ),
    composable_templates=True,
    metrics_keyword_ignore_above=8191,
    error_description_mapping=True,
    # GlobalStats.__init__ (esrally/metrics.py): the attribute order is the order of as_dict.
    results_keys=(
        "op_metrics",
        *_SHARD_TIMES,
        *_GC,
        "zgc_cycles_gc_time",
        "zgc_cycles_gc_count",
        "zgc_pauses_gc_time",
        "zgc_pauses_gc_count",
        *_SEGMENT_MEMORY,
        "dataset_size",
        "store_size",
        "translog_size",
        "segment_count",
        *_TRANSFORMS,
        "ingest_pipeline_cluster_count",
        "ingest_pipeline_cluster_time",
        "ingest_pipeline_cluster_failed",
        "disk_usage_total",
        "disk_usage_inverted_index",
        "disk_usage_stored_fields",
        "disk_usage_doc_values",
        "disk_usage_points",
        "disk_usage_norms",
        "disk_usage_term_vectors",
    ),
    op_metrics_keys=(
        "task",
        "operation",
        "throughput",
        "latency",
        "service_time",
        "processing_time",
        "error_rate",
        "duration",
    ),
    challenge_always=False,
)

#: OpenSearch Benchmark 2.4.0's layout (osbenchmark/metrics.py; osbenchmark/resources/*-template.json).
OSB = StoreLayout(
    name=LayoutName.OSB,
    tool="OpenSearch Benchmark",
    tool_version="2.4.0",
    prefixes={
        StoreIndex.RACES: "benchmark-test-runs",
        StoreIndex.RESULTS: "benchmark-results",
        StoreIndex.METRICS: "benchmark-metrics",
    },
    annotations_index=None,
    fields=FieldNames(
        race_id="test-run-id",
        race_timestamp="test-run-timestamp",
        track="workload",
        challenge="test_procedure",
        car="cluster-config-instance",
        track_params="workload-params",
        car_params="cluster-config-instance-params",
        track_revision="workload-revision",
        tool_version="benchmark-version",
        tool_revision="benchmark-revision",
        relative_time="relative-time-ms",
        config_revision="cluster-config-revision",
    ),
    composable_templates=False,
    metrics_keyword_ignore_above=None,
    error_description_mapping=False,
    # GlobalStats.__init__ (osbenchmark/metrics.py), in its attribute order.
    results_keys=(
        "op_metrics",
        "correctness_metrics",
        "profile_metrics",
        *_SHARD_TIMES,
        *_GC,
        *_SEGMENT_MEMORY,
        "docs_count",
        "store_size",
        "translog_size",
        "segment_count",
        *_TRANSFORMS,
    ),
    op_metrics_keys=(
        "task",
        "operation",
        "throughput",
        "latency",
        "service_time",
        "client_processing_time",
        "processing_time",
        "error_rate",
        "duration",
    ),
    challenge_always=True,
)

LAYOUTS: dict[LayoutName, StoreLayout] = {LayoutName.RALLY: RALLY, LayoutName.OSB: OSB}
