"""OpenSearch Benchmark's query randomization (``--randomization-enabled``): the range queries of
the default challenge's ``search`` operations get new bounds on every request.

Source: OSB 2.4.0, ``osbenchmark/workload/loader.py`` ``QueryRandomizerWorkloadProcessor`` and
``osbenchmark/workload/params.py`` (``register_standard_value_source``,
``generate_standard_values_if_absent``, ``register_query_randomization_info``). The rules:

* A workload plugin registers, per operation name and range field, a *standard value source*: a
  function returning ``{"gte": ..., "lte": ...}`` (the names of the first option of each group).
* At load time, each ``search`` task of the default challenge is given a randomizing param source;
  its range fields (the keys under a ``range`` object whose value has one name of each option
  group, ``gte``/``gt`` and ``lte``/``lt``) are found in ``body.query``, and ``n`` standard values
  are drawn per field (a missing source is an error).
* On every request, with probability ``repeat_frequency`` one of the standard values is used
  again (its index drawn from a Zipf distribution with exponent ``alpha``: the first values are
  the most frequent), the same index for every field of the query; otherwise the value source
  gives new values. The bounds present in the query are replaced by the new ones.
* OSB never replaces the optional parameters (``format``): it looks them up in the list of new
  values rather than in a value; esbench does the same.

A plugin can register another query shape with ``register_query_randomization_info`` (query name,
option groups, optional parameters); without one the ``range`` shape above applies.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from esbench.driver.worker.params.base import ParamSource, get_target
from esbench.driver.worker.runners.base import RallyParams
from esbench.exceptions import ConfigError

#: ``(field name, path from body.query to the object that holds it)``.
RangeField = tuple[str, tuple[str | int, ...]]


@dataclass(frozen=True)
class RandomizationInfo:
    """Which query a randomizer changes (OSB's ``QueryRandomizationInfo``).

    Attributes:
        query_name: the query's key, e.g. ``"range"``.
        options: groups of interchangeable parameter names, e.g. ``(("gte", "gt"), ("lte", "lt"))``;
            a value source names each group's first.
        optional: parameters replaced when present (never, see module doc).

    Raises:
        esbench.exceptions.ConfigError: a parameter named like the query, or a name in two groups.
    """

    query_name: str
    options: tuple[tuple[str, ...], ...]
    optional: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        names = [name for group in self.options for name in group]
        if self.query_name in names:
            raise ConfigError(
                f"Query randomization: the parameter name '{self.query_name}' is the name of its query; "
                f"fix register_query_randomization_info in the workload's plugin."
            )
        if len(names) != len(set(names)):
            raise ConfigError(
                f"Query randomization: a parameter name appears twice in {list(map(list, self.options))}; "
                f"fix register_query_randomization_info in the workload's plugin."
            )

    def matches(self, value: object) -> bool:
        """True if ``value`` (a mapping) has one name of every option group."""
        return isinstance(value, Mapping) and all(any(n in value for n in group) for group in self.options)


DEFAULT_INFO = RandomizationInfo("range", (("gte", "gt"), ("lte", "lt")), ("format",))


def range_fields(query: object, info: RandomizationInfo) -> list[RangeField]:
    """The randomizable fields of ``query`` (a ``body.query``) in document order."""
    found: list[RangeField] = []

    def walk(node: object, path: tuple[str | int, ...]) -> None:
        if isinstance(node, Mapping) and node:
            if path and path[-1] == info.query_name:
                found.extend((str(key), path) for key, value in node.items() if info.matches(value))
                return
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, (*path, i))

    walk(query, ())
    return found


def set_ranges(
    query: Any, fields: Sequence[RangeField], values: Sequence[Mapping[str, Any]], info: RandomizationInfo
) -> None:
    """Replace, in ``query`` (changed in place), each field's bounds by its new value."""
    for (name, path), value in zip(fields, values, strict=True):
        holder = query
        for step in path:
            holder = holder[step]
        section = holder[name]
        for group in info.options:
            for option in group:
                if option in section:
                    section[option] = value[group[0]]


class Zipf:
    """Draws indexes 0..n-1 with Zipf weights ``1 / k**alpha`` (OSB's inverse-CDF rule)."""

    def __init__(self, n: int, alpha: float) -> None:
        self._cumulative: list[float] = []
        total = 0.0
        for k in range(1, n + 1):
            total += 1 / k**alpha
            self._cumulative.append(total)

    def index(self, u: float) -> int:
        """The index for a uniform ``u`` in [0, 1): the first ``k`` whose H(k)/H(n) exceeds ``u``."""
        total = self._cumulative[-1]
        for k, h in enumerate(self._cumulative[:-1]):
            if u < h / total:
                return k
        return len(self._cumulative) - 1


@dataclass(frozen=True)
class RandomizedSearch:
    """The randomizer of one search operation, ready at load time (pickled to the workers).

    Attributes:
        operation: the operation's name.
        info: the query shape.
        fields: the range fields of the operation's query.
        sources: the value source of each field (the plugin's functions), in ``fields`` order.
        standard_values: ``n`` values per field drawn at load time, in ``fields`` order.
        repeat_frequency: probability of reusing a standard value (0..1).
        alpha: the Zipf exponent.
    """

    operation: str
    info: RandomizationInfo
    fields: tuple[RangeField, ...]
    sources: tuple[Callable[[], Mapping[str, Any]], ...]
    standard_values: tuple[tuple[Mapping[str, Any], ...], ...]
    repeat_frequency: float
    alpha: float


def prepare_randomized_search(
    operation: str,
    params: RallyParams,
    *,
    sources: Mapping[tuple[str, str], Callable[[], Mapping[str, Any]]],
    info: RandomizationInfo,
    n: int,
    repeat_frequency: float,
    alpha: float,
) -> RandomizedSearch:
    """The randomizer of ``operation`` (OSB's ``on_after_load_workload`` for one search task).

    Raises:
        esbench.exceptions.ConfigError: the operation has no ``body.query``, or a range field has
            no value source (the plugin must call ``register_standard_value_source``).
    """
    try:
        query = params["body"]["query"]
    except (KeyError, TypeError):
        raise ConfigError(
            f"Query randomization: the search operation '{operation}' has no body.query to randomize. "
            f"Give it a query, or run without --randomization-enabled."
        ) from None
    fields = tuple(range_fields(query, info))
    chosen = []
    for name, _ in fields:
        source = sources.get((operation, name))
        if source is None:
            raise ConfigError(
                f"Query randomization: no standard value source for the field '{name}' of the operation "
                f"'{operation}'. The workload's plugin must register one "
                f"(registry.register_standard_value_source('{operation}', '{name}', source)), or run "
                f"without --randomization-enabled."
            )
        chosen.append(source)
    standard = tuple(tuple(source() for _ in range(n)) for source in chosen)
    return RandomizedSearch(
        operation=operation,
        info=info,
        fields=fields,
        sources=tuple(chosen),
        standard_values=standard,
        repeat_frequency=repeat_frequency,
        alpha=alpha,
    )


class RandomizedSearchParamSource(ParamSource):
    """The param source of a randomized ``search`` (see module doc): the operation's params (with
    the default target as ``index``) whose range bounds change on every call.

    Args:
        track / params: as every param source.
        randomized: the operation's :class:`RandomizedSearch`.
        rng: the random source (tests give a seeded one).
    """

    def __init__(
        self,
        track: Any,
        params: RallyParams,
        *,
        randomized: RandomizedSearch,
        rng: random.Random | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(track, params, **kwargs)
        if "index" not in self._params:
            self._params["index"] = get_target(track, self._params)
        self._randomized = randomized
        self._rng = rng or random.Random()
        self._zipf: Zipf | None = None

    def params(self) -> dict[str, Any]:
        r = self._randomized
        if r.fields:
            if self._rng.random() < r.repeat_frequency:
                if self._zipf is None:
                    self._zipf = Zipf(len(r.standard_values[0]), r.alpha)
                index = self._zipf.index(self._rng.random())
                values = [per_field[index] for per_field in r.standard_values]
            else:
                values = [source() for source in r.sources]
            set_ranges(self._params["body"]["query"], r.fields, values, r.info)
        return self._params
