"""OSB's query randomization options (``execute-test``'s ``--randomization-*`` in OSB 2.4.0's
``osbenchmark/benchmark.py``): they fill ``DriverSettings.query_randomization``
(:class:`esbench.driver.settings.QueryRandomization`; the randomizer is
:mod:`esbench.driver.worker.params.randomized`)."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import click

from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.track import RACING
from esbench.driver.settings import QueryRandomization

_DEFAULTS = QueryRandomization()

RANDOMIZATION_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="randomization_enabled",
        flags=("--randomization-enabled",),
        commands=RACING,
        kind=Kind.FLAG,
        rally=False,
        help="OSB's query randomization: every range query of the default challenge's search tasks gets "
        "new bounds on each request, from the workload plugin's standard value sources.",
        field="RaceSettings.driver.query_randomization",
    ),
    CliOption(
        name="randomization_repeat_frequency",
        flags=("--randomization-repeat-frequency",),
        commands=RACING,
        rally=False,
        type=click.FloatRange(min=0, max=1),
        default=_DEFAULTS.repeat_frequency,
        show_default=True,
        help="With --randomization-enabled: the probability that a request reuses one of the standard "
        "values (a likely cache hit) instead of new bounds; OSB ignores it without randomization.",
        field="RaceSettings.driver.query_randomization (its repeat_frequency)",
    ),
    CliOption(
        name="randomization_n",
        flags=("--randomization-n",),
        commands=RACING,
        rally=False,
        type=click.IntRange(min=1),
        default=_DEFAULTS.n,
        show_default=True,
        help="With --randomization-enabled: the standard values drawn per range field when the workload "
        "is loaded.",
        field="RaceSettings.driver.query_randomization (its n)",
    ),
    CliOption(
        name="randomization_alpha",
        flags=("--randomization-alpha",),
        commands=RACING,
        rally=False,
        type=click.FloatRange(min=0),
        default=_DEFAULTS.alpha,
        show_default=True,
        help="With --randomization-enabled: the Zipf exponent of the reused value's index (low values "
        "spread the reuse out, high values favour the first standard values).",
        field="RaceSettings.driver.query_randomization (its alpha)",
    ),
)


def pop_query_randomization(opts: MutableMapping[str, Any]) -> QueryRandomization | None:
    """Pop the four options from a command's click keyword arguments: their settings, or None when
    ``--randomization-enabled`` is not given (OSB then ignores the other three too)."""
    values = {e.name: opts.pop(e.name, e.default) for e in RANDOMIZATION_OPTIONS}
    if not values["randomization_enabled"]:
        return None
    return QueryRandomization(
        repeat_frequency=float(values["randomization_repeat_frequency"]),
        n=int(values["randomization_n"]),
        alpha=float(values["randomization_alpha"]),
    )
