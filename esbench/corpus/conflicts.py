"""Rally's simulated document id conflicts for bulk indexing (``conflicts``, ``conflict-probability``,
``on-conflict``, ``recency``), without parsing documents.

Rules (Rally 2.x ``esrally/track/params.py``: ``BulkIndexParamSource``, ``build_conflicting_ids``,
``GenerateActionMetaData``):

* Each file slice gets the ids ``"%010d" % (offset + i)`` for ``i`` in ``[0, docs)``, ``offset`` being
  the slice's first line. ``sequential`` uses them in order, ``random`` in a shuffled order.
* Per document: if ``id_up_to > 0`` and ``random() <= conflict-probability / 100``, reuse an id
  already issued: uniformly from ``[0, id_up_to)`` when ``recency == 0``, else
  ``round((id_up_to - 1) * (1 - min(expovariate(30 * recency), 1)))`` (biased to recent ids), with
  action ``on-conflict`` (``index`` or ``update``); otherwise take the next fresh id with action
  ``index``.
* ``update`` wraps the document: ``{"doc":<line without surrounding whitespace>}``.

Differences from Rally: Rally shuffles a materialised id list with the global ``random`` module;
esbench uses a seeded Feistel permutation (same distribution, O(1) memory, reproducible).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from esbench.exceptions import TrackValidationError

_RECENCY_SLOPE = 30


@dataclass(frozen=True, slots=True, kw_only=True)
class IdConflicts:
    """Id conflict settings of a bulk operation.

    Attributes:
        kind: ``"sequential"`` or ``"random"`` (Rally's ``conflicts``).
        probability: percent of documents that reuse an issued id, in ``[0, 100]``
            (``conflict-probability``, default 25).
        on_conflict: ``"index"`` or ``"update"`` (``on-conflict``, default ``index``).
        recency: ``[0, 1]``; > 0 biases reused ids towards recent ones (``recency``, default 0).
        seed: seed for the random choices; None derives one from the client index.
    """

    kind: str
    probability: float = 25.0
    on_conflict: str = "index"
    recency: float = 0.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("sequential", "random"):
            raise TrackValidationError(
                f"Unknown 'conflicts' setting [{self.kind}] of a bulk operation. "
                f"Use 'sequential' or 'random'."
            )
        if not 0.0 <= self.probability <= 100.0:
            raise TrackValidationError(
                f"'conflict-probability' must be in the range [0.0, 100.0] but was {self.probability:.1f}."
            )
        if self.on_conflict not in ("index", "update"):
            raise TrackValidationError(
                f"Unknown 'on-conflict' setting [{self.on_conflict}] of a bulk operation. "
                f"Use 'index' or 'update'."
            )
        if not 0.0 <= self.recency <= 1.0:
            raise TrackValidationError(
                f"'recency' must be in the range [0.0, 1.0] but was {self.recency:.1f}."
            )

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> IdConflicts | None:
        """Read Rally's bulk operation params; None when ``conflicts`` is absent or empty.

        Raises:
            TrackValidationError: unknown values or numbers out of range.
        """
        kind = params.get("conflicts")
        if not kind:
            return None
        try:
            probability = float(params.get("conflict-probability", 25))
            recency = float(params.get("recency", 0))
        except (TypeError, ValueError):
            raise TrackValidationError(
                "'conflict-probability' and 'recency' of a bulk operation must be numeric."
            ) from None
        return cls(
            kind=str(kind),
            probability=probability,
            on_conflict=str(params.get("on-conflict", "index")),
            recency=recency,
        )


class FeistelPermutation:
    """A seeded bijection of ``[0, n)`` (balanced Feistel network + cycle walking), O(1) memory."""

    __slots__ = ("_half", "_keys", "_mask", "_n")

    def __init__(self, n: int, rng: random.Random) -> None:
        self._n = n
        bits = max(2, (max(n, 2) - 1).bit_length())
        self._half = (bits + 1) // 2
        self._mask = (1 << self._half) - 1
        self._keys = tuple(rng.getrandbits(32) for _ in range(4))

    def _round(self, x: int, key: int) -> int:
        x = ((x ^ key) * 0x9E3779B1) & 0xFFFFFFFF
        x ^= x >> 15
        return (x * 0x85EBCA6B) & self._mask

    def __call__(self, i: int) -> int:
        x = i
        while True:
            left, right = x >> self._half, x & self._mask
            for key in self._keys:
                left, right = right, left ^ self._round(right, key)
            x = (left << self._half) | right
            if x < self._n:
                return x


class ConflictingActions:
    """Action lines with explicit ids for one file slice (Rally's ``GenerateActionMetaData``)."""

    def __init__(
        self, conflicts: IdConflicts, *, index: str, offset: int, docs: int, rng: random.Random
    ) -> None:
        target = json.dumps(index)
        self._index_prefix = b'{"index": {"_index": %s, "_id": "' % target.encode()
        self._update_prefix = b'{"update": {"_index": %s, "_id": "' % target.encode()
        self._offset = offset
        self._docs = docs
        self._perm = FeistelPermutation(docs, rng) if conflicts.kind == "random" else None
        self._p = conflicts.probability / 100.0
        self._update = conflicts.on_conflict == "update"
        self._recency = conflicts.recency
        self._rng = rng
        self._id_up_to = 0

    def _id(self, i: int) -> bytes:
        position = self._perm(i) if self._perm is not None else i
        return b"%010d" % (self._offset + position)

    def body(self, lines: list[bytes]) -> bytes:
        """The bulk body for ``lines`` (documents without their ``\\n``), advancing the id state."""
        parts: list[bytes] = []
        append = parts.append
        rng = self._rng
        for line in lines:
            if self._p and self._id_up_to > 0 and rng.random() <= self._p:
                if self._recency == 0:
                    idx = rng.randint(0, self._id_up_to - 1)
                else:
                    idx_range = min(rng.expovariate(_RECENCY_SLOPE * self._recency), 1)
                    idx = round((self._id_up_to - 1) * (1 - idx_range))
                if self._update:
                    append(self._update_prefix + self._id(idx) + b'"}}\n')
                    append(b'{"doc":' + line.strip() + b"}\n")
                    continue
                append(self._index_prefix + self._id(idx) + b'"}}\n')
            else:
                append(self._index_prefix + self._id(self._id_up_to) + b'"}}\n')
                self._id_up_to += 1
            append(line)
            append(b"\n")
        return b"".join(parts)
