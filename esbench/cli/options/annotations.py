"""Options of ``add annotation`` (Rally's ``add`` parser in ``esrally/rally.py``; the document they
make is Rally's, :mod:`esbench.results.annotations`)."""

from __future__ import annotations

import click

from esbench.cli.options.entry import CliOption, Kind

_ADD = ("add annotation",)


def _chart_types() -> click.Choice[str]:
    from esbench.results.annotations import CHART_TYPES

    return click.Choice(CHART_TYPES)


ANNOTATION_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="dry_run",
        flags=("--dry-run",),
        commands=_ADD,
        kind=Kind.FLAG,
        help="Show what would be added, add nothing.",
        field="add annotation adds nothing",
    ),
    CliOption(
        name="race_timestamp",
        flags=("--race-timestamp",),
        commands=_ADD,
        required=True,
        help="The race timestamp (yyyyMMddTHHmmssZ) whose day to annotate.",
        field="the annotation's race-timestamp (midnight of that day, as Rally)",
    ),
    CliOption(
        name="track",
        flags=("--track",),
        commands=_ADD,
        help="The track to annotate (default: every track).",
        field="the annotation's track",
    ),
    CliOption(
        name="chart_type",
        flags=("--chart-type",),
        commands=_ADD,
        type=_chart_types,
        help="The chart type to annotate (default: every chart).",
        field="the annotation's chart",
    ),
    CliOption(
        name="chart_name",
        flags=("--chart-name",),
        commands=_ADD,
        help="The chart name to annotate (default: every chart).",
        field="the annotation's chart-name",
    ),
    CliOption(
        name="message",
        flags=("--message",),
        commands=_ADD,
        required=True,
        help="The annotation's text.",
        field="the annotation's message",
    ),
)
