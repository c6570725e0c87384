"""Param sources of OSB's k-NN operations: ``vector-search`` (a k-NN query per query vector of
a data set, with its true neighbors) and ``bulk-vector-data-set`` (bulk bodies of the data set's
vectors), both split across the task's clients.

Source: OSB 2.4.0, ``osbenchmark/workload/params.py``: ``VectorDataSetPartitionParamSource``,
``VectorSearchPartitionParamSource`` (``VectorSearchParamSource``) and
``BulkVectorsFromDataSetParamSource``; the data sets are read by :mod:`esbench.corpus.vectors`.

Partitioning (OSB's rule): the ``num_vectors`` rows (default and at most: the data set's size)
are cut into equal runs of ``num_vectors // clients``; the last client also gets the rest. Each
client reads its run once (``repetitions`` times for queries) and then its source is exhausted.

The data set is a file (``data_set_path``) or the one file of a corpus whose ``source-format`` is
the ``data_set_format`` (``data_set_corpus``, prepared by :func:`esbench.corpus.prepare_corpora`;
likewise ``neighbors_data_set_corpus``).

Not supported (refused with a ConfigError): nested vector fields in bulk (``field`` with a dot:
parent ids from the data set) and ``radial_search_type`` (threshold data sets).
"""

from __future__ import annotations

import copy
import os
from typing import Any

from esbench.corpus.model import CorpusSet
from esbench.corpus.vectors import Context, VectorDataSet, open_data_set
from esbench.driver.worker.params.base import ParamSource, get_target
from esbench.driver.worker.runners.base import RallyParams
from esbench.exceptions import ConfigError
from esbench.track.model import Track


def _text(params: RallyParams, key: str, op: str, default: str | None = None) -> str:
    # OSB's parse_string_parameter: a missing or empty value takes the default.
    value = params.get(key)
    if not value:
        if default is not None:
            return default
        raise ConfigError(
            f"Operation '{op}' needs the parameter '{key}' (a string); add it to the operation."
        )
    if not isinstance(value, str):
        raise ConfigError(f"Operation '{op}': '{key}' must be a string, got {value!r}.")
    return value


def _corpus_file(corpora: object, corpus: str, source_format: str, op: str) -> str:
    """The one prepared file of ``corpus`` in ``source_format`` (OSB's ``_get_corpora_file_paths``
    and ``_validate_data_set_corpus``)."""
    paths: tuple[Any, ...] = ()
    if isinstance(corpora, CorpusSet):
        paths = corpora.data_set_paths(corpus, source_format)
    if not paths:
        raise ConfigError(
            f"Operation '{op}': the corpus '{corpus}' has no prepared file with source-format "
            f"'{source_format}'. Check 'data_set_corpus' against the workload's corpora and their "
            f"'source-format', or give the file with 'data_set_path'."
        )
    if len(paths) > 1:
        raise ConfigError(
            f"Operation '{op}': the corpus '{corpus}' has {len(paths)} '{source_format}' files "
            f"({', '.join(map(str, paths))}); a vector operation reads one (OSB's rule)."
        )
    return str(paths[0])


def _integer(params: RallyParams, key: str, op: str, default: int | None = None) -> int:
    if key not in params:
        if default is not None:
            return default
        raise ConfigError(
            f"Operation '{op}' needs the parameter '{key}' (an integer); add it to the operation."
        )
    value = params[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"Operation '{op}': '{key}' must be an integer, got {value!r}.")
    return value


class _VectorPartitionSource(ParamSource):
    """What both sources share: the data set, its size and this client's run of rows."""

    context = Context.INDEX

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        self.op = str(kwargs.get("operation_name") or params.get("name", "?"))
        self.field = _text(params, "field", self.op)
        self.data_set_format = _text(params, "data_set_format", self.op)
        self.data_set_path = _text(params, "data_set_path", self.op, "")
        corpus = params.get("data_set_corpus")
        if not self.data_set_path and not corpus:
            raise ConfigError(
                f"Operation '{self.op}': the vector data set is missing. Give its file in 'data_set_path'."
            )
        if self.data_set_path and corpus:
            raise ConfigError(
                f"Operation '{self.op}' gives both 'data_set_path' ({self.data_set_path}) and "
                f"'data_set_corpus' ({corpus}); give one of them (OSB's rule)."
            )
        if corpus:
            self.data_set_path = _corpus_file(
                kwargs.get("corpora"), str(corpus), self.data_set_format, self.op
            )
        self.total_vectors = _integer(params, "num_vectors", self.op, -1)
        self.offset = 0
        self.count = 0
        self.current = 0
        self.total = 1
        self.data_set: VectorDataSet | None = None

    @property
    def infinite(self) -> bool:
        return False

    def size(self) -> int | None:
        return None

    def _partition(self, index: int, clients: int) -> Any:
        probe = open_data_set(self.data_set_format, self.data_set_path, self.context)
        rows = probe.size()
        probe.close()
        if self.total_vectors < 0 or self.total_vectors > rows:
            self.total_vectors = rows
        self.total = self.total_vectors
        part = copy.copy(self)
        per_client = self.total_vectors // clients
        part.offset = index * per_client
        part.count = per_client
        if index == clients - 1:
            part.count += self.total_vectors - per_client * clients
        part.data_set = open_data_set(self.data_set_format, self.data_set_path, self.context)
        part.data_set.seek(part.offset)
        part.current = part.offset
        return part

    @property
    def percent_completed(self) -> float:
        """Share of the data set's rows read (OSB's ``task_progress``)."""
        return self.current / self.total if self.total else 0.0


class VectorSearchParamSource(_VectorPartitionSource):
    """``vector-search``: a k-NN query per query vector (the ``test`` data set) and its true
    neighbors (``neighbors``, from ``neighbors_data_set_path`` or the same file).

    Params: ``field``, ``data_set_format``, ``data_set_path``, ``num_vectors`` (-1: all),
    ``k``, ``repetitions`` (1), ``neighbors_data_set_format``/``_path``, ``id-field-name``,
    ``filter_type`` (``efficient``, ``post_filter``, ``boolean``, ``script``) with
    ``filter_body``, ``space_type`` (``l2``, for script filters), ``oversample_factor``,
    ``max_distance`` / ``min_score`` (radial search), and the search params (``index``, ``body``,
    ``request-params``, ``cache``, ``detailed-results``, ``calculate-recall``...).

    Raises:
        esbench.exceptions.ConfigError: a missing or wrong parameter (see module doc).
    """

    context = Context.QUERY

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        p = params
        target = get_target(track, p)
        if not target:
            raise ConfigError(
                f"'index' or 'data-stream' is mandatory and is missing for operation '{self.op}'."
            )
        if p.get("data-stream") and p.get("type"):
            raise ConfigError(f"'type' not supported with 'data-stream' for operation '{self.op}'.")
        if "radial_search_type" in p:
            raise ConfigError(
                f"Operation '{self.op}' uses 'radial_search_type', whose threshold data sets esbench does "
                f"not read; give 'max_distance' or 'min_score' instead."
            )
        if p.get("neighbors_data_set_path") and p.get("neighbors_data_set_corpus"):
            raise ConfigError(
                f"Operation '{self.op}' gives both 'neighbors_data_set_path' and "
                f"'neighbors_data_set_corpus'; give one of them (OSB's rule)."
            )
        self.k = _integer(p, "k", self.op) if "k" in p else None
        self.repetitions = _integer(p, "repetitions", self.op, 1)
        self.rep = 1
        self.neighbors_format = _text(p, "neighbors_data_set_format", self.op, self.data_set_format)
        self.neighbors_path = p.get("neighbors_data_set_path") or self.data_set_path
        if p.get("neighbors_data_set_corpus"):
            self.neighbors_path = _corpus_file(
                kwargs.get("corpora"), str(p["neighbors_data_set_corpus"]), self.neighbors_format, self.op
            )
        self.oversample_factor = p.get("oversample_factor")
        self.radial = "max_distance" in p or "min_score" in p
        if self.oversample_factor and self.radial:
            raise ConfigError(
                f"Operation '{self.op}': 'oversample_factor' cannot be used with 'max_distance' or "
                f"'min_score' (rescoring is only supported with top-k search)."
            )
        self.space_type = p.get("space_type", "l2")
        self.query: dict[str, Any] = {
            "index": target,
            "type": p.get("type"),
            "cache": p.get("cache"),
            "detailed-results": p.get("detailed-results", False),
            "calculate-recall": p.get("calculate-recall", True),
            "request-params": dict(p.get("request-params") or {}),
            "response-compression-enabled": p.get("response-compression-enabled", True),
            "body": p.get("body"),
            "request-timeout": p.get("request-timeout"),
            "headers": p.get("headers"),
            "opaque-id": p.get("opaque-id"),
            "operation-type": p.get("operation-type") or "vector-search",
            "id-field-name": p.get("id-field-name"),
        }
        for key in ("pages", "results-per-page", "with-point-in-time-from", "profile-metrics"):
            if p.get(key):
                self.query[key] = p[key]
        if p.get("profile-metrics"):
            self.query["profile-metrics-sample-size"] = p.get("profile-metrics-sample-size", 0)
        if self.k is not None:
            self.query["k"] = self.k
        for key in ("max_distance", "min_score", "filter", "filter_type", "filter_body"):
            if key in p:
                self.query[key] = p[key]
        self.neighbors: VectorDataSet | None = None

    def partition(self, partition_index: int, total_partitions: int) -> VectorSearchParamSource:
        """The source of one client: its run of query vectors and of their neighbors."""
        part: VectorSearchParamSource = self._partition(partition_index, total_partitions)
        part.query = copy.deepcopy(self.query)
        # OSB's executor tells the runner the task's clients and the driver's cores (recall is
        # skipped on an overloaded load driver).
        part.query["num_clients"] = total_partitions
        part.query["num_cores"] = os.cpu_count() or 1
        part.neighbors = open_data_set(self.neighbors_format, self.neighbors_path, Context.NEIGHBORS)
        part.neighbors.seek(part.offset)
        return part

    def params(self) -> dict[str, Any]:
        if self.data_set is None or self.neighbors is None:
            raise ConfigError(
                f"Operation '{self.op}': a vector-search param source must be partitioned first."
            )
        if self.current >= self.count + self.offset:
            if self.rep >= self.repetitions:
                raise StopIteration
            self.data_set.seek(self.offset)
            self.neighbors.seek(self.offset)
            self.current = self.offset
            self.rep += 1
        vector = (self.data_set.read(1) or [[]])[0]
        neighbor = (self.neighbors.read(1) or [[]])[0]
        if self.k is not None:
            truth = [str(int(n)) for n in neighbor[: self.k]]
        else:
            truth = [str(int(n)) for n in neighbor if n >= 0]
        q = self.query
        q["neighbors"] = truth
        request_params = q.get("request-params") or {}
        request_params.setdefault("allow_partial_search_results", "false")
        q["request-params"] = request_params
        body = q.get("body") or {}
        if "size" not in body and self.k is not None:
            body["size"] = self.k
        filter_type, filter_body = q.get("filter_type"), q.get("filter_body")
        body["query"] = self._knn_query(vector, filter_type, filter_body)
        if filter_type == "post_filter":
            body["post_filter"] = filter_body
        q["body"] = body
        self.current += 1
        return q

    def _knn_query(self, vector: list[Any], filter_type: object, filter_body: object) -> dict[str, Any]:
        efficient = filter_body if filter_type == "efficient" else None
        inner: dict[str, Any] = {"vector": vector}
        if self.k is not None:
            inner["k"] = self.k
        for key in ("max_distance", "min_score"):
            if key in self.query:
                inner[key] = self.query[key]
        if efficient:
            inner["filter"] = efficient
        if self.oversample_factor:
            inner["rescore"] = {"oversample_factor": self.oversample_factor}
        knn = {"knn": {self.field: inner}}
        if "." in self.field:
            outer = self.field.split(".")
            if len(outer) != 2:
                raise ConfigError(f"Operation '{self.op}': field '{self.field}' nests more than one level.")
            return {"nested": {"path": outer[0], "query": knn}}
        if filter_type and not efficient and filter_type != "post_filter":
            if filter_type == "script":
                script_params = {"field": self.field, "query_value": vector, "space_type": self.space_type}
                return {
                    "script_score": {
                        "query": {"bool": {"filter": filter_body}},
                        "script": {"source": "knn_score", "lang": "knn", "params": script_params},
                    }
                }
            if filter_type == "boolean":
                return {"bool": {"filter": filter_body, "must": [knn]}}
            raise ConfigError(f"Operation '{self.op}': unsupported filter type '{filter_type}'.")
        return knn


class BulkVectorsParamSource(_VectorPartitionSource):
    """``bulk-vector-data-set``: bulk bodies of ``bulk_size`` vectors (the ``train`` data set) as
    a list of ``{"index": {"_index": <index>, "_id": <row>}}`` and ``{<field>: <vector>}``
    objects; with an ``id-field-name`` other than ``_id`` the row number goes into the document
    under that name instead of the action. ``filter_attributes`` (names) adds each row's
    ``attributes`` (hdf5, from ``parents_data_set_path``, default the same file) to its document,
    leaving out the values ``"None"``. ``retries`` (10) is handed to the runner.

    Raises:
        esbench.exceptions.ConfigError: a missing or wrong parameter (see module doc).
    """

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        self.bulk_size = _integer(params, "bulk_size", self.op)
        self.retries = _integer(params, "retries", self.op, 10)
        self.index_name = _text(params, "index", self.op)
        self.id_field = _text(params, "id-field-name", self.op, "_id")
        if "." in self.field:
            raise ConfigError(
                f"Operation '{self.op}' indexes the nested vector field '{self.field}' (parent ids from "
                f"the data set), which esbench does not support; index a top-level vector field."
            )
        self.filter_attributes = [str(a) for a in params.get("filter_attributes") or []]
        # The attributes are read from the parents' data set, by default the vectors' file (OSB).
        self.parents_path = _text(params, "parents_data_set_path", self.op, self.data_set_path)
        self.attributes: VectorDataSet | None = None

    def partition(self, partition_index: int, total_partitions: int) -> BulkVectorsParamSource:
        """The source of one client: its run of the data set's vectors."""
        part: BulkVectorsParamSource = self._partition(partition_index, total_partitions)
        if self.filter_attributes:
            part.attributes = open_data_set(self.data_set_format, self.parents_path, Context.ATTRIBUTES)
            part.attributes.seek(part.offset)
        return part

    def params(self) -> dict[str, Any]:
        if self.data_set is None:
            raise ConfigError(
                f"Operation '{self.op}': a bulk-vector-data-set source must be partitioned first."
            )
        if self.current >= self.count + self.offset:
            raise StopIteration
        size = min(self.bulk_size, self.count + self.offset - self.current)
        vectors = self.data_set.read(size) or []
        attributes = (self.attributes.read(size) or []) if self.attributes is not None else []
        body: list[dict[str, Any]] = []
        in_document = self.id_field != "_id"
        for i, vector in enumerate(vectors):
            row = self.current + i
            action: dict[str, Any] = {"_index": self.index_name}
            if not in_document:
                action["_id"] = row
            doc: dict[str, Any] = {self.field: vector}
            if attributes:
                # hdf5 byte strings; OSB leaves out an attribute whose value is "None".
                for name, raw in zip(self.filter_attributes, attributes[i], strict=False):
                    value = raw.decode() if isinstance(raw, bytes) else str(raw)
                    if value != "None":
                        doc[name] = value
            if in_document:
                doc[self.id_field] = row
            body.extend(({"index": action}, doc))
        self.current += len(vectors)
        return {"body": body, "retries": self.retries, "size": len(vectors), "action-metadata-present": True}
