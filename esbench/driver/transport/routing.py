"""Elasticsearch's document routing, computed on the client: which shard a document goes to.

The rules, from the Elasticsearch source (server/src/main/java/org/elasticsearch/...):

* ``cluster/routing/Murmur3HashFunction.java``: ``hash(String)`` lays each UTF-16 code unit of the
  string out as two bytes, low byte first (UTF-16LE; supplementary characters as their surrogate
  pair), and hashes them with Lucene's ``StringHelper.murmurhash3_x86_32`` with seed 0, a signed
  32-bit int. :func:`murmur3_hash` does the same with the ``mmh3`` package.
* ``cluster/routing/IndexRouting.java``: the effective routing is ``_routing`` when given, else
  ``_id``; ``hashToShardId(hash) = floorMod(hash, routingNumShards) / routingFactor``. A partitioned
  index (``index.routing_partition_size`` > 1, routing required) adds
  ``floorMod(hash(_id), routing_partition_size)`` to ``hash(_routing)`` before that. Indices with
  ``index.routing_path`` (time series, and logsdb routed on sort fields) hash fields of the
  document source instead (``ExtractFromSource``): the client cannot know that rule's input
  without re-implementing ES's source hashing, so :class:`IndexRouting` refuses them.
* ``cluster/metadata/IndexMetadata.java``: ``getRoutingFactor() = routingNumShards /
  numberOfShards``; ``routing_num_shards`` is part of the index metadata in ``_cluster/state`` (set
  by ``index.number_of_routing_shards`` or defaulted at creation, carried over by ``_split`` and
  ``_shrink``).
* ``cluster/metadata/MetadataCreateIndexService.java``: ``calculateNumRoutingShards`` (indices
  created on 7.0+): ``numShards * 2^max(1, 10 - ceil(log2(numShards)))``, i.e. the largest
  ``numShards * 2^k`` not above 1024, and at least one split; :func:`default_routing_num_shards`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mmh3

from esbench.exceptions import EsbenchError


class RoutingError(EsbenchError):
    """The client cannot compute an index's routing (time series, unknown index, bad metadata)."""


def murmur3_hash(routing: str) -> int:
    """Elasticsearch's ``Murmur3HashFunction.hash(String)``: a signed 32-bit int.

    Murmur3 x86_32, seed 0, over the string's UTF-16 code units as little-endian bytes; lone
    surrogates are hashed as their code unit, like Java's ``charAt``.
    """
    return mmh3.hash(routing.encode("utf-16-le", "surrogatepass"), 0, signed=True)


def default_routing_num_shards(number_of_shards: int) -> int:
    """``MetadataCreateIndexService.calculateNumRoutingShards`` for indices created on 7.0 or later.

    Raises:
        ValueError: ``number_of_shards`` < 1 or > 1024.
    """
    if not 1 <= number_of_shards <= 1024:
        raise ValueError(f"number_of_shards must be in [1, 1024], got {number_of_shards}")
    log2_num_shards = (number_of_shards - 1).bit_length()
    splits = max(1, 10 - log2_num_shards)
    return number_of_shards << splits


@dataclass(frozen=True, slots=True)
class IndexRouting:
    """How one concrete index maps ``(_id, _routing)`` to a shard number.

    Attributes:
        index: the concrete index name.
        number_of_shards: primaries (``index.number_of_shards``).
        routing_num_shards: ``routing_num_shards`` of the index metadata.
        routing_partition_size: ``index.routing_partition_size`` (1: not partitioned).
        routing_required: the mapping's ``_routing.required``.
    """

    index: str
    number_of_shards: int
    routing_num_shards: int
    routing_partition_size: int = 1
    routing_required: bool = False

    def __post_init__(self) -> None:
        if self.number_of_shards < 1 or self.routing_num_shards < self.number_of_shards:
            raise RoutingError(
                f"Index '{self.index}' has {self.number_of_shards} shards and routing_num_shards "
                f"{self.routing_num_shards}: not a routing the client can compute. Check the index "
                f"metadata (GET _cluster/state/metadata/{self.index})."
            )
        if self.routing_num_shards % self.number_of_shards:
            raise RoutingError(
                f"Index '{self.index}': routing_num_shards {self.routing_num_shards} is not a multiple "
                f"of its {self.number_of_shards} shards, so there is no routing factor."
            )
        if self.routing_partition_size < 1:
            raise RoutingError(
                f"Index '{self.index}': routing_partition_size {self.routing_partition_size} is below 1."
            )

    @property
    def routing_factor(self) -> int:
        """``IndexMetadata.getRoutingFactor()``: ``routing_num_shards / number_of_shards``."""
        return self.routing_num_shards // self.number_of_shards

    @property
    def partitioned(self) -> bool:
        """``IndexMetadata.isRoutingPartitionedIndex()``: ``routing_partition_size`` > 1."""
        return self.routing_partition_size > 1

    def hash_to_shard(self, hash_value: int) -> int:
        """``IndexRouting.hashToShardId``: ``floorMod(hash, routing_num_shards) / routing_factor``."""
        # Python's % is Java's floorMod for a positive divisor.
        return (hash_value % self.routing_num_shards) // self.routing_factor

    def shard(self, doc_id: str, routing: str | None = None) -> int:
        """The shard number (0-based) of a document with ``_id`` ``doc_id`` and ``_routing``.

        Raises:
            RoutingError: the index requires routing (``_routing.required`` or partitioned) and
                ``routing`` is None; Elasticsearch rejects such a document too.
        """
        if routing is None and (self.routing_required or self.partitioned):
            raise RoutingError(
                f"Index '{self.index}' requires a routing value (its mapping has _routing.required, or "
                f"routing_partition_size > 1), and document '{doc_id}' has none. Give each action line "
                f'a "routing".'
            )
        if not self.partitioned:
            return self.hash_to_shard(murmur3_hash(doc_id if routing is None else routing))
        offset = murmur3_hash(doc_id) % self.routing_partition_size
        assert routing is not None
        # Java's int addition wraps around; Python's does not.
        return self.hash_to_shard(_java_int(murmur3_hash(routing) + offset))

    @classmethod
    def from_metadata(cls, index: str, metadata: Mapping[str, Any]) -> IndexRouting:
        """From one index's entry of ``GET _cluster/state/metadata`` (``metadata.indices.<index>``).

        Raises:
            RoutingError: the index is routed by ``index.routing_path`` (time series or logsdb
                routed on sort fields), or its metadata lacks the shard counts.
        """
        settings = _flat_index_settings(metadata.get("settings") or {})
        routing_path = settings.get("routing_path")
        mode = str(settings.get("mode") or "").lower()
        if routing_path or mode == "time_series":
            raise RoutingError(
                f"Index '{index}' routes documents by fields of their source "
                f"(index.mode={mode or 'standard'}, "
                f"index.routing_path={routing_path!r}): Elasticsearch's time-series routing hashes the "
                f"routing_path fields of each document, which esbench does not re-implement. Drop the "
                f"'routing-aware' option for this index (send bulks the ordinary way)."
            )
        try:
            shards = int(settings["number_of_shards"])
            routing_num_shards = int(metadata.get("routing_num_shards") or shards)
            partition = int(settings.get("routing_partition_size", 1))
        except (KeyError, TypeError, ValueError):
            raise RoutingError(
                f"The cluster state of index '{index}' lacks number_of_shards/routing_num_shards; "
                f"cannot compute its routing."
            ) from None
        return cls(
            index=index,
            number_of_shards=shards,
            routing_num_shards=routing_num_shards,
            routing_partition_size=partition,
            routing_required=_routing_required(metadata.get("mappings")),
        )


def _java_int(value: int) -> int:
    """``value`` wrapped to a signed 32-bit int, as Java's int arithmetic does."""
    return (value + 2**31) % 2**32 - 2**31


def _flat_index_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The ``index.*`` settings of a cluster-state entry, nested or flat, without the prefix."""
    index = settings.get("index")
    flat: dict[str, Any] = {}
    if isinstance(index, Mapping):
        _flatten(index, "", flat)
    for key, value in settings.items():
        if key.startswith("index."):
            flat[key[len("index.") :]] = value
    return flat


def _flatten(values: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in values.items():
        if isinstance(value, Mapping):
            _flatten(value, f"{prefix}{key}.", out)
        else:
            out[f"{prefix}{key}"] = value


def _routing_required(mappings: object) -> bool:
    """``_routing.required`` of a cluster-state mapping (``{"_doc": {...}}`` or the bare mapping)."""
    if not isinstance(mappings, Mapping):
        return False
    body = mappings.get("_doc", mappings)
    routing = body.get("_routing") if isinstance(body, Mapping) else None
    if not isinstance(routing, Mapping):
        return False
    return str(routing.get("required", False)).lower() == "true"
