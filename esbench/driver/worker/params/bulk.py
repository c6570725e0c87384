"""The ``bulk`` param source: each client's bulk bodies from the prepared corpora.

Params (Rally's track reference, "bulk"): ``bulk-size`` (mandatory, documents per request),
``batch-size`` (accepted for compatibility: a multiple of ``bulk-size``), ``ingest-percentage``
(0-100, default 100), ``corpora``, ``indices``, ``data-streams`` (select document files),
``pipeline``, ``conflicts``/``conflict-probability``/``on-conflict``/``recency``, ``looped``,
``detailed-results``, ``timeout``. Body assembly and Rally's partitioning (client ``i`` of ``N``
reads its own 1/N of each file) are :class:`esbench.corpus.bulk.BulkSource`'s; this module selects
the files, validates the parameters once per task and turns each body into runner params.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from esbench.corpus.bulk import BulkRequest, BulkSource, select_files
from esbench.corpus.conflicts import IdConflicts
from esbench.corpus.model import CorpusSet, PreparedDocuments
from esbench.driver.worker.params.base import ParamSource
from esbench.driver.worker.runners.base import PREPARED, RallyParams
from esbench.driver.worker.runners.bulk import prepare_bulk
from esbench.exceptions import ConfigError
from esbench.track.model import Track

#: Params of the operation that describe the corpus rather than the request.
_SOURCE_KEYS = (
    "corpora",
    "indices",
    "data-streams",
    "batch-size",
    "ingest-percentage",
    "looped",
    "conflicts",
    "conflict-probability",
    "on-conflict",
    "recency",
)


def _positive_int(params: RallyParams, key: str, op: str, default: object = None) -> int:
    value = params.get(key, default)
    if value is None:
        raise ConfigError(f"Operation '{op}' (bulk) needs '{key}' (documents per bulk request).")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"'{key}' of operation '{op}' must be a number, got {value!r}.") from None
    if number <= 0:
        raise ConfigError(f"'{key}' of operation '{op}' must be positive, got {number}.")
    return number


class BulkParamSource(ParamSource):
    """Validates a bulk operation and selects its files (once per task and worker).

    Args:
        track: the track.
        params: the operation's params.
        corpora: the prepared corpora (``prepare_corpora`` result) passed by the driver.

    Raises:
        esbench.exceptions.ConfigError: bad sizes/percentages, or no prepared corpora.
        esbench.exceptions.TrackValidationError: the selection matches no file, bad conflicts.
    """

    def __init__(
        self, track: Track, params: RallyParams, *, corpora: CorpusSet | None = None, **kwargs: object
    ) -> None:
        super().__init__(track, params, **kwargs)
        op = str(kwargs.get("operation_name") or params.get("name", "bulk"))
        self.bulk_size = _positive_int(params, "bulk-size", op)
        batch_size = _positive_int(params, "batch-size", op, default=self.bulk_size)
        if batch_size < self.bulk_size or batch_size % self.bulk_size:
            raise ConfigError(
                f"'batch-size' of operation '{op}' must be a multiple of 'bulk-size' ({self.bulk_size})."
            )
        try:
            self.ingest_percentage = float(params.get("ingest-percentage", 100))
        except (TypeError, ValueError):
            raise ConfigError(f"'ingest-percentage' of operation '{op}' must be numeric.") from None
        if not 0 < self.ingest_percentage <= 100:
            raise ConfigError(
                f"'ingest-percentage' of operation '{op}' must be in (0, 100], got {self.ingest_percentage}."
            )
        self.id_conflicts = IdConflicts.from_params(params)
        self.looped = bool(params.get("looped", False))
        self.pipeline = params.get("pipeline")
        if corpora is None or not corpora.all():
            raise ConfigError(
                f"Operation '{op}' (bulk) has no documents to index: the track defines no corpora, or "
                f"they were not prepared. Add a corpus to the track (or pass the prepared corpora to "
                f"the driver)."
            )
        self.files: tuple[PreparedDocuments, ...] = select_files(
            corpora.all(),
            corpora=params.get("corpora"),
            indices=params.get("indices"),
            data_streams=params.get("data-streams"),
        )
        base = {k: v for k, v in self._params.items() if k not in _SOURCE_KEYS}
        base["action-metadata-present"] = True
        base["unit"] = "docs"
        base[PREPARED] = prepare_bulk(base)
        self._base = base
        # Fail before the race for bad conflict settings or files without target.
        self._client(0, 1)

    def _client(self, index: int, clients: int) -> BulkClientSource:
        source = BulkSource(
            self.files,
            client_index=index,
            num_clients=clients,
            bulk_size=self.bulk_size,
            looped=self.looped,
            id_conflicts=self.id_conflicts,
            pipeline=self.pipeline,
            ingest_percentage=self.ingest_percentage,
        )
        return BulkClientSource(source, self._base)

    def partition(self, partition_index: int, total_partitions: int) -> BulkClientSource:
        return self._client(partition_index, total_partitions)

    def params(self) -> dict[str, Any]:
        raise RuntimeError("the bulk param source must be partitioned per client")


class BulkClientSource:
    """One client's bulk params: ``body``, ``bulk-size`` (documents), ``index``, ``unit=docs``.

    Ends (``StopIteration``) after the client's share of the corpus unless ``looped``.
    """

    def __init__(self, source: BulkSource, base: RallyParams) -> None:
        self._source = source
        self._base = dict(base)
        self._requests: Iterator[BulkRequest] | None = None
        self._views = False
        self.current = 0
        self.total = source.bulks_per_pass
        self.infinite = source.looped and self.total > 0

    def partition(self, partition_index: int, total_partitions: int) -> BulkClientSource:
        return self

    def size(self) -> int | None:
        return None if self.infinite else self.total

    @property
    def percent_completed(self) -> float | None:
        if self.infinite or not self.total:
            return None
        return self.current / self.total

    def use_body_views(self) -> None:
        """The runner sends bodies as they are: bodies may be read-only views of the corpus
        mapping or of a looped slice's spool instead of copies (:meth:`BulkSource.requests`).
        Takes effect if called before the first :meth:`params`."""
        self._views = True

    def params(self) -> dict[str, Any]:
        if self._requests is None:
            self._requests = self._source.requests(views=self._views)
        request = next(self._requests)
        self.current += 1
        params = self._base.copy()
        params["body"] = request.body
        params["bulk-size"] = request.doc_count
        params["index"] = request.index
        return params
