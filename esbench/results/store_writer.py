"""Writing races into the metrics store in Rally's layout or OSB's (the writer of issues 40 and 41).

Rally 2.13 writes, per race (esrally/metrics.py): the race document (``EsRaceStore.store_race``),
one results document per metric and task (``EsResultsStore.store_results``) and the samples
(``EsMetricsStore.flush``, after each task and at the end); OSB 2.4.0 the same under other names
(osbenchmark/metrics.py: ``OsTestRunStore.store_test_run``, ``OsResultsStore.store_results``,
``OsMetricsStore.flush``). :func:`write_races` does the same for stored races (``esbench export``,
and race control at the end of a race) in the layout of ``settings.layout``; a race's per-request
samples come during the race, one task at a time, through :class:`SampleWriter`.

Before the first document: one ``GET /`` unless ``datastore.probe.cluster_version = false`` (Rally's
layout needs Elasticsearch 7.8 or later, for composable templates; OSB's layout any version the
store reports), then the layout's templates (:func:`esbench.results.store_templates.put_templates`,
each time, as both tools do: "always update the mapping to the latest version").

Layouts: :mod:`esbench.results.store_layout`; documents: :mod:`esbench.results.store_documents`;
templates: :mod:`esbench.results.store_templates`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from esbench.console import Console
from esbench.exceptions import EsbenchError, StoreError
from esbench.records import RaceResult
from esbench.records.samples import RequestSamples
from esbench.results import store_documents as docs
from esbench.results import store_metric_documents as metric_docs
from esbench.results.metrics_store import MetricsStoreSettings, metrics_store_client
from esbench.results.sample_bulk import sample_bulk_bodies
from esbench.results.store_layout import StoreIndex, StoreLayout
from esbench.results.store_templates import put_templates

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

logger = logging.getLogger(__name__)

#: Documents per bulk request (Rally sends a task's samples in one ``helpers.bulk`` call, 500 each).
CHUNK_SIZE = 5000


@dataclass(frozen=True, kw_only=True)
class ExportCounts:
    """How many documents were written: race documents, results documents, metrics documents
    (throughput windows, end-of-race values, per-request samples) and telemetry documents."""

    races: int = 0
    results: int = 0
    metrics: int = 0
    telemetry: int = 0


def prepare_store(es: Elasticsearch, settings: MetricsStoreSettings) -> None:
    """Check the store (``GET /`` when ``settings.probe_cluster_version``) and put the layout's
    templates.

    Raises:
        StoreError: the store does not answer with a version (OSB's layout), or not as
            Elasticsearch 7.8 or later (Rally's).
        elasticsearch.ApiError / TransportError: the store refused or could not be reached (the
            caller's :func:`metrics_store_client` turns them into a :class:`StoreError`).
    """
    if settings.probe_cluster_version:
        _check_version(es, settings)
    put_templates(es, settings.layout, shards=settings.number_of_shards, replicas=settings.number_of_replicas)


def _check_version(es: Elasticsearch, settings: MetricsStoreSettings) -> None:
    from elasticsearch import ApiError

    try:
        info = es.info()
    except ApiError as e:
        # The Maven integ-test builds after 8.8 refuse GET / with 405 but say they are
        # Elasticsearch: their version cannot be read, and they take the templates.
        if e.meta.status == 405 and e.meta.headers.get("X-elastic-product") == "Elasticsearch":
            logger.info("The metrics store refuses GET / (an integ-test build); its version is not checked.")
            return
        raise
    version = str(info.get("version", {}).get("number", ""))
    parts = [int(p) for p in version.split("-")[0].split(".")[:2] if p.isdigit()]
    if not settings.layout.composable_templates:
        # OSB's OsClient.probe_version: the store must tell its version; legacy templates work on all.
        if len(parts) < 2:
            raise StoreError(
                f"the metrics store {settings.display_url} does not say its version (GET / answered "
                f"{version or 'none'}). Point it at an OpenSearch cluster, or set "
                "datastore.probe.cluster_version = false."
            )
        return
    if len(parts) < 2 or tuple(parts) < (7, 8):
        raise StoreError(
            f"the metrics store {settings.display_url} answers as version {version or '?'}; Rally's "
            "templates need Elasticsearch 7.8 or later. Point --metrics-store (or [reporting] "
            "datastore.host) at such a cluster, or set datastore.probe.cluster_version = false."
        )


def _bulk(
    es: Elasticsearch, settings: MetricsStoreSettings, actions: Iterable[dict[str, Any]], *, refresh: bool
) -> None:
    from elasticsearch import helpers

    _, errors = helpers.bulk(
        es, actions, raise_on_error=False, chunk_size=CHUNK_SIZE, refresh="wait_for" if refresh else False
    )
    if errors:
        # helpers.bulk types its second value "int | list"; with stats_only off it is the list of
        # failed items.
        failed = cast(list[dict[str, Any]], errors)
        raise StoreError(
            f"the metrics store {settings.display_url} refused {len(failed)} document(s); the first: "
            f"{failed[0]}."
        )


def _bulk_body(es: Elasticsearch, settings: MetricsStoreSettings, body: bytes) -> None:
    """Send one encoded bulk body (NDJSON, :mod:`esbench.results.sample_bulk`).

    Raises:
        StoreError: the store refused documents (the message shows the first refusal).
    """
    # The client sends bytes as they are (elastic_transport's NdjsonSerializer); its stubs say only
    # "a sequence of mappings".
    response = es.bulk(operations=cast(Any, body), refresh=False)
    if response.get("errors"):
        failed = [item for item in response["items"] for result in item.values() if result.get("error")]
        raise StoreError(
            f"the metrics store {settings.display_url} refused {len(failed)} document(s); the first: "
            f"{failed[0] if failed else response['items'][:1]}."
        )


def _race_actions(
    race: RaceResult, environment: str, layout: StoreLayout, counts: dict[str, int]
) -> Iterator[dict[str, Any]]:
    at = docs.race_timestamp(race)
    ctx = docs.context(race, environment, layout)
    counts["races"] += 1
    race_doc = docs.race_document(race, environment, layout)
    race_doc["esbench"]["tasks"] = [dataclasses.asdict(t) for t in race.tasks]
    race_doc["esbench"]["cluster-metrics"] = [dataclasses.asdict(m) for m in race.cluster_metrics]
    yield {"_index": layout.monthly_index(StoreIndex.RACES, at), "_id": race.race_id, "_source": race_doc}
    results = layout.monthly_index(StoreIndex.RESULTS, at)
    for i, doc in enumerate(docs.result_documents(race, environment, layout)):
        counts["results"] += 1
        # Deterministic ids: exporting a race again overwrites instead of duplicating (Rally lets
        # Elasticsearch pick ids; nothing reads them).
        yield {"_index": results, "_id": f"{race.race_id}-result-{i}", "_source": doc}
    metrics = layout.monthly_index(StoreIndex.METRICS, at)
    end_s = at.timestamp() + race.duration_s
    for kind, generated in (
        ("throughput", metric_docs.throughput_documents(ctx, race)),
        ("cluster", metric_docs.cluster_documents(ctx, race, end_s)),
        ("telemetry", metric_docs.telemetry_documents(ctx, race, at.timestamp())),
    ):
        for i, doc in enumerate(generated):
            counts["telemetry" if kind == "telemetry" else "metrics"] += 1
            yield {"_index": metrics, "_id": f"{race.race_id}-{kind}-{i}", "_source": doc}


def write_races(
    races: Iterable[RaceResult], settings: MetricsStoreSettings, *, refresh: bool = False
) -> ExportCounts:
    """Write each race's race document, results documents, throughput windows, end-of-race values
    and telemetry into the indices of ``settings.layout`` (``rally-*-YYYY-MM`` or
    ``benchmark-*-YYYY-MM`` of the race timestamp).

    Args:
        refresh: refresh the written indices before returning (tests, immediate dashboards).

    Raises:
        StoreError: the store is unreachable, rejects the credentials, a template or a document;
            the message names the hosts without credentials.
    """
    counts = {"races": 0, "results": 0, "metrics": 0, "telemetry": 0}
    races = list(races)
    with metrics_store_client(settings, "export") as es:
        prepare_store(es, settings)
        layout = settings.layout
        _keep_extra_unindexed(
            es, {layout.monthly_index(StoreIndex.RACES, docs.race_timestamp(r)) for r in races}
        )
        _bulk(
            es,
            settings,
            (a for r in races for a in _race_actions(r, settings.environment, layout, counts)),
            refresh=refresh,
        )
    logger.debug("wrote %s to %s", counts, settings.display_url)
    return ExportCounts(**counts)


def _keep_extra_unindexed(es: Elasticsearch, indices: set[str]) -> None:
    """Map the ``esbench`` object of the race documents as not indexed in race indices that exist
    already. Templates apply when an index is created; a race index that Rally (or OSB) created
    has the tool's mapping, where the ``esbench`` object would be mapped dynamically, and its
    percentile keys (``99`` beside ``99.9``) cannot be. A field can be added to an existing mapping,
    so this is done before the first esbench race document goes into such an index.

    Raises:
        elasticsearch.ApiError: the store refused the mapping (an ``esbench`` field of another
            type is already mapped there); the caller reports it.
    """
    for index in sorted(indices):
        if es.indices.exists(index=index):
            es.indices.put_mapping(index=index, properties={"esbench": {"type": "object", "enabled": False}})


class SampleWriter:
    """The driver's ``sample_sink`` with a metrics store: bulk-writes one task's per-request
    ``latency``/``service_time``/``processing_time`` documents at its join point, as Rally's
    ``EsMetricsStore.flush`` (OSB's ``OsMetricsStore.flush``) does after each task.

    A failure is warned about once on ``console`` and the later tasks' samples are dropped (the
    race goes on; its results still go to the store at the end). Never raises.

    Args:
        settings: the store. race: the race so far (id, timestamp, track, challenge, car,
            track params, user tags are read).
    """

    def __init__(self, settings: MetricsStoreSettings, race: RaceResult, console: Console) -> None:
        self.settings = settings
        self.context = docs.context(race, settings.environment, settings.layout)
        self.index = settings.layout.monthly_index(StoreIndex.METRICS, docs.race_timestamp(race))
        self.console = console
        self.written = 0
        self.failed = False
        self._prepared = False

    def __call__(self, samples: RequestSamples) -> None:
        if self.failed or not len(samples):
            return
        # Elasticsearch picks the ids, as for Rally's samples: cheaper than ours to index. The bodies
        # are encoded directly (a few µs per request against 10 to 50 for dicts through the client's
        # serializer: benchmarks/bench_store_samples.py); metric_docs.sample_documents is their
        # specification.
        bodies = sample_bulk_bodies(
            self.context.common(),
            self.context.meta(),
            samples,
            self.index,
            relative_field=self.context.layout.fields.relative_time,
        )
        try:
            with metrics_store_client(self.settings, "write of samples") as es:
                if not self._prepared:
                    prepare_store(es, self.settings)
                    self._prepared = True
                for body, _ in bodies:
                    _bulk_body(es, self.settings, body)
        except EsbenchError as e:
            self.failed = True
            self.console.warn(f"Per-request samples are not written to the metrics store: {e}")
            return
        self.written += 3 * len(samples)
