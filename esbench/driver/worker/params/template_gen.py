"""Generators of template variables: each client's values of each variable, a column at a time.

:func:`make_generator` turns a :class:`~esbench.driver.worker.params.template_vars.VariableSpec` into a
:class:`Generator` for one client (semantics in :mod:`esbench.driver.worker.params.template_vars`).
``column(n)`` returns ``n`` values in one call so that a bulk's values come from C-level loops
(see :mod:`esbench.driver.worker.params.template`).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import os
import random
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import cast

from esbench.driver.worker.params.template_bitmap import bitmap_value
from esbench.driver.worker.params.template_golayout import compile_layout, go_time_string
from esbench.driver.worker.params.template_vars import VariableSpec, VariableType, apply_replace
from esbench.exceptions import ConfigError

_MAX32 = 2**31 - 1
_MAX64 = 2**63 - 1
#: Integer ranges up to this many values are kept as a table of strings (no str() per value).
_RANGE_TABLE_MAX = 1 << 16


# --------------------------------------------------------------------------------------- xid


_B32 = "0123456789abcdefghijklmnopqrstuv"


def _b32(value: int, chars: int) -> str:
    return "".join(_B32[(value >> (5 * (chars - 1 - i))) & 31] for i in range(chars))


def _machine_id() -> bytes:
    # rs/xid: the first 3 bytes of the md5 of the platform machine id, else of the host name.
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            ident = Path(path).read_text().strip()
        except OSError:
            continue
        if ident:
            return hashlib.md5(ident.encode(), usedforsecurity=False).digest()[:3]
    return hashlib.md5(socket.gethostname().encode(), usedforsecurity=False).digest()[:3]


class XidSource:
    """``rs/xid`` ids (Loadgen's ``uuid``): 4-byte seconds, 3-byte machine, 2-byte pid, 3-byte counter
    (random start), base32hex, 20 characters. One per process, so ids are unique across clients."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._machine = _machine_id()
        self._counter = int.from_bytes(os.urandom(3), "big")
        p2 = self.pid & 3
        # The last 6 characters hold the pid's 2 low bits and the 24-bit counter (+4 padding bits):
        # 3 characters from counter >> 11, 3 from counter & 0x7ff.
        self._hi = [_b32(((p2 << 13) | h), 3) for h in range(1 << 13)]
        self._lo = [_b32(lo << 4, 3) for lo in range(1 << 11)]
        self._second = -1
        self._prefix = ""

    def _head(self) -> str:
        second = int(time.time())
        if second != self._second:
            self._second = second
            raw = (
                second.to_bytes(4, "big") + self._machine + (self.pid & 0xFFFF).to_bytes(2, "big") + b"\0\0\0"
            )
            self._prefix = base64.b32hexencode(raw).decode("ascii").lower()[:14]
        return self._prefix

    def column(self, n: int) -> list[str]:
        """``n`` consecutive ids."""
        prefix = self._head()
        hi, lo = self._hi, self._lo
        c = self._counter
        self._counter = (c + n) & 0xFFFFFF
        out: list[str] = []
        remaining = n
        while remaining:
            c &= 0xFFFFFF
            low = c & 0x7FF
            take = min(remaining, 0x800 - low)
            head = prefix + hi[c >> 11]
            out += [head + x for x in lo[low : low + take]]
            c += take
            remaining -= take
        return out


_XID: XidSource | None = None


def xid_source() -> XidSource:
    """The process's :class:`XidSource` (a new one after a fork: the pid is part of the id)."""
    global _XID
    if _XID is None or _XID.pid != os.getpid():
        _XID = XidSource()
    return _XID


# --------------------------------------------------------------------------------- generators


class Generator:
    """Produces a variable's values for one client: ``column(n)`` gives ``n`` fresh values.

    ``uniform`` generators give ``n`` equal values per call (clock, constants): a body builder
    may ask them for one value and write it into the line format instead.
    """

    uniform = False

    def column(self, n: int) -> list[str]:
        raise NotImplementedError

    def one(self) -> str:
        return self.column(1)[0]


#: Tables up to this size are drawn from with 16-bit random numbers (see :class:`_Pick`).
_FAST_PICK_MAX = 1 << 14


class _Pick(Generator):
    """Uniform random items of ``table``.

    Small tables: ``table`` is repeated to ``M = L * (65536 // L)`` entries, 16-bit random numbers
    index it in C (``map`` over a ``memoryview``), and the rare numbers >= M (rejection sampling,
    so every item keeps probability exactly 1/L) are redrawn one by one.
    """

    def __init__(self, table: Sequence[str], rng: random.Random) -> None:
        self._table = list(table)
        self._rng = rng
        size = len(self._table)
        if size <= _FAST_PICK_MAX:
            # entry j is table[j % size]: every item size-th, so each has 65536 // size slots
            wide: list[str | None] = [*self._table] * (65536 // size)
            wide.extend([None] * (65536 - len(wide)))
            self._wide: list[str | None] | None = wide
        else:
            self._wide = None

    def column(self, n: int) -> list[str]:
        wide = self._wide
        if wide is None:
            return self._rng.choices(self._table, k=n)
        values = list(map(wide.__getitem__, memoryview(self._rng.randbytes(2 * n)).cast("H")))
        if None in values:
            choice = self._rng.choice
            table = self._table
            i = values.index(None)
            while True:
                values[i] = choice(table)
                try:
                    i = values.index(None, i + 1)
                except ValueError:
                    break
        return cast(list[str], values)  # the loop above replaced every None


class _RandomInt(Generator):
    def __init__(
        self, start: int, stop: int, rng: random.Random, replace: tuple[tuple[str, str], ...]
    ) -> None:
        self._start, self._stop, self._rng, self._replace = start, stop, rng, replace

    def column(self, n: int) -> list[str]:
        rand = self._rng.randint
        values = [str(rand(self._start, self._stop)) for _ in range(n)]
        return [apply_replace(self._replace, v) for v in values] if self._replace else values


class _Bitmap(Generator):
    """Loadgen's ``int_array_bitmap``: ``size`` draws of [start, stop] per value."""

    def __init__(self, spec: VariableSpec, rng: random.Random) -> None:
        self._start, self._stop, self._size, self._rng = spec.start, spec.stop, spec.size, rng
        self._replace = spec.replace

    def column(self, n: int) -> list[str]:
        rand, start, stop, size = self._rng.randint, self._start, self._stop, self._size
        values = [bitmap_value(rand(start, stop) for _ in range(size)) for _ in range(n)]
        return [apply_replace(self._replace, v) for v in values] if self._replace else values


class _Sequence(Generator):
    """Client ``index`` of ``clients``' share of Loadgen's counter (see module doc)."""

    def __init__(self, spec: VariableSpec, index: int, clients: int) -> None:
        limit = _MAX64 if spec.type is VariableType.SEQUENCE64 else _MAX32
        top = spec.stop if spec.stop > 0 else limit
        self._start = spec.start
        self._top = top
        self._first = max(0, top - spec.start)  # values from+1..top before the first wrap
        self._k = index
        self._stride = clients
        self._replace = spec.replace

    def _value(self, k: int) -> int:
        if k < self._first:
            return self._start + 1 + k
        return (k - self._first) % (self._top + 1)

    def column(self, n: int) -> list[str]:
        k, stride = self._k, self._stride
        self._k = k + n * stride
        last = k + (n - 1) * stride
        if last < self._first:
            first = self._start + 1 + k
            values = list(map(str, range(first, first + n * stride, stride)))
        else:
            values = [str(self._value(k + i * stride)) for i in range(n)]
        return [apply_replace(self._replace, v) for v in values] if self._replace else values


class _Xid(Generator):
    def __init__(self, replace: tuple[tuple[str, str], ...]) -> None:
        self._replace = replace

    def column(self, n: int) -> list[str]:
        values = xid_source().column(n)
        return [apply_replace(self._replace, v) for v in values] if self._replace else values


class _Clock(Generator):
    """``now_*``: the clock is read once per column (see module doc)."""

    uniform = True

    def __init__(self, render: Callable[[], str], replace: tuple[tuple[str, str], ...]) -> None:
        self._render, self._replace = render, replace

    def column(self, n: int) -> list[str]:
        return [apply_replace(self._replace, self._render())] * n


class _Constant(Generator):
    uniform = True

    def __init__(self, value: str) -> None:
        self._value = value

    def column(self, n: int) -> list[str]:
        return [self._value] * n


class _RandomArray(Generator):
    def __init__(self, spec: VariableSpec, items: Generator) -> None:
        self._spec, self._items = spec, items

    def column(self, n: int) -> list[str]:
        spec = self._spec
        size = spec.size
        if size <= 0:
            value = "[]" if spec.square_bracket else ""
            return [apply_replace(spec.replace, value)] * n
        items = self._items.column(n * size)
        if spec.quote is not None:
            q = spec.quote
            items = [q + x + q for x in items]
        joined = [",".join(items[i : i + size]) for i in range(0, n * size, size)]
        if spec.square_bracket:
            joined = ["[" + x + "]" for x in joined]
        return [apply_replace(spec.replace, v) for v in joined] if spec.replace else joined


def _now_local() -> str:
    ns = time.time_ns()
    t = dt.datetime.fromtimestamp(ns // 1_000_000_000, dt.UTC).astimezone()
    return go_time_string(t, ns % 1_000_000_000)


def _now_utc() -> str:
    ns = time.time_ns()
    t = dt.datetime.fromtimestamp(ns // 1_000_000_000, dt.UTC)
    return go_time_string(t, ns % 1_000_000_000)


def _now_utc_lite() -> str:
    t = dt.datetime.now(dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}"


def _clock(spec: VariableSpec) -> Callable[[], str]:
    kind = spec.type
    if kind is VariableType.NOW_LOCAL:
        return _now_local
    if kind is VariableType.NOW_UTC:
        return _now_utc
    if kind is VariableType.NOW_UTC_LITE:
        return _now_utc_lite
    if kind is VariableType.NOW_UNIX:
        return lambda: str(time.time_ns() // 1_000_000_000)
    if kind is VariableType.NOW_UNIX_IN_MS:
        return lambda: str(time.time_ns() // 1_000_000)
    if kind is VariableType.NOW_UNIX_IN_MICRO:
        return lambda: str(time.time_ns() // 1_000)
    if kind is VariableType.NOW_UNIX_IN_NANO:
        return lambda: str(time.time_ns())
    fmt = compile_layout(spec.layout)
    return lambda: fmt(dt.datetime.now().astimezone())


def make_generator(
    spec: VariableSpec,
    specs: Mapping[str, VariableSpec],
    *,
    index: int,
    clients: int,
    rng: random.Random,
    cache: dict[str, Generator] | None = None,
) -> Generator:
    """The generator of ``spec`` for client ``index`` of ``clients``.

    ``cache`` (name -> generator) makes every use of a variable share one generator, so a
    ``random_array`` over a ``sequence`` advances the same counter as the sequence itself.

    Raises:
        ConfigError: a ``random_array`` refers to an unknown variable or to itself.
    """
    if cache is None:
        cache = {}
    made = cache.get(spec.name)
    if made is None:
        made = cache[spec.name] = _make(spec, specs, index=index, clients=clients, rng=rng, cache=cache)
    return made


def _make(
    spec: VariableSpec,
    specs: Mapping[str, VariableSpec],
    *,
    index: int,
    clients: int,
    rng: random.Random,
    cache: dict[str, Generator],
) -> Generator:
    kind = spec.type
    if kind in (VariableType.FILE, VariableType.LIST):
        return _Pick(spec.lines, rng)
    if kind is VariableType.RANGE:
        if spec.stop - spec.start < _RANGE_TABLE_MAX:
            table = [apply_replace(spec.replace, str(v)) for v in range(spec.start, spec.stop + 1)]
            return _Pick(table, rng)
        return _RandomInt(spec.start, spec.stop, rng, spec.replace)
    if kind in (VariableType.SEQUENCE, VariableType.SEQUENCE64):
        return _Sequence(spec, index, clients)
    if kind is VariableType.UUID:
        return _Xid(spec.replace)
    if kind is VariableType.INT_ARRAY_BITMAP:
        return _Bitmap(spec, rng)
    if kind is VariableType.ENV:
        return _Constant(apply_replace(spec.replace, spec.value))
    if kind is VariableType.RANDOM_ARRAY:
        key = spec.array_key
        if key == spec.name or key not in specs:
            raise ConfigError(
                f"random_array '{spec.name}' takes its items from '{key}', which is "
                + ("itself." if key == spec.name else "not a defined variable.")
            )
        items = make_generator(specs[key], specs, index=index, clients=clients, rng=rng, cache=cache)
        return _RandomArray(spec, items)
    return _Clock(_clock(spec), spec.replace)


def constant_generator(value: str) -> Generator:
    """A generator that always yields ``value`` (runtime variables, ``env.*``)."""
    return _Constant(value)
