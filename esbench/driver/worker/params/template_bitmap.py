"""The value of INFINI Loadgen's ``int_array_bitmap`` variable: a Roaring bitmap of random integers,
serialized and base64-encoded.

Loadgen (``domain.go`` ``buildVariableValue``) adds ``size`` random integers of [``from``, ``to``]
to a ``roaring.Bitmap`` (github ``RoaringBitmap/roaring``), writes it with ``WriteTo`` and encodes
it with standard base64. ``WriteTo`` writes Roaring's portable format without run containers
(nothing run-optimizes the bitmap), which is what :func:`roaring_portable` produces:

* cookie ``12346`` (uint32) and the number of containers (uint32), little-endian;
* per container (by ascending high 16 bits): the key (uint16) and the cardinality - 1 (uint16);
* per container: the byte offset of its data from the start (uint32);
* per container: up to 4,096 values as sorted uint16 (an array container), else 1,024 uint64
  words with one bit per low 16 bits (a bitmap container).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterable

_COOKIE_NO_RUN = 12346
_ARRAY_MAX = 4096
_BITMAP_BYTES = 8192


def roaring_portable(values: Iterable[int]) -> bytes:
    """Roaring's portable serialization (no run containers) of a set of uint32 ``values``.

    Raises:
        ValueError: a value outside [0, 2^32).
    """
    containers: dict[int, set[int]] = {}
    for value in values:
        if not 0 <= value < 1 << 32:
            raise ValueError(f"a Roaring bitmap holds 32-bit unsigned integers, got {value}")
        containers.setdefault(value >> 16, set()).add(value & 0xFFFF)
    keys = sorted(containers)
    header = [struct.pack("<II", _COOKIE_NO_RUN, len(keys))]
    header += [struct.pack("<HH", key, len(containers[key]) - 1) for key in keys]
    offset = 8 + 8 * len(keys)  # cookie, count, then 4 bytes of description and 4 of offset each
    bodies = []
    for key in keys:
        low = sorted(containers[key])
        if len(low) <= _ARRAY_MAX:
            body = struct.pack(f"<{len(low)}H", *low)
        else:
            bits = 0
            for v in low:
                bits |= 1 << v
            body = bits.to_bytes(_BITMAP_BYTES, "little")
        header.append(struct.pack("<I", offset))
        offset += len(body)
        bodies.append(body)
    return b"".join(header) + b"".join(bodies)


def bitmap_value(values: Iterable[int]) -> str:
    """The ``int_array_bitmap`` text of ``values``: base64 (standard alphabet) of
    :func:`roaring_portable`."""
    return base64.b64encode(roaring_portable(values)).decode("ascii")
