"""``esbench add annotation``, ``list annotations``, ``delete annotation``: Rally's annotations of the
metrics store (:mod:`esbench.results.annotations`), with Rally 2.13's options and messages
(``esrally/rally.py``: ``add_parser``, ``list_parser``, ``delete_parser``; ``esrally/metrics.py``:
``EsRaceStore.add_annotation``, ``list_annotations``, ``delete_annotation``).

Annotations need the metrics store (``--metrics-store=URL`` or ``ESBENCH_METRICS_STORE``): without
one the commands refuse with exit status 64, as Rally refuses with its in-memory store.
"""

from __future__ import annotations

from typing import Any

import click

from esbench.cli import list_group, main
from esbench.cli._store_options import metrics_store_options, reading_settings, reading_store_help
from esbench.cli.options import table_options
from esbench.cli.results import _delete_group
from esbench.console import tabulate
from esbench.exceptions import UserError
from esbench.results.metrics_store import MetricsStoreSettings
from esbench.results.race_listing import DEFAULT_ENVIRONMENT

_ENVIRONMENT_HELP = "The environment of the annotations (Rally's env.name)."


def _add_group() -> click.Group:
    existing = main.commands.get("add")
    if isinstance(existing, click.Group):
        return existing

    @main.group("add")
    def add_group() -> None:
        """Add records (annotations) to the metrics store."""

    return add_group


def _settings(verb: str, store_options: dict[str, Any]) -> MetricsStoreSettings:
    if not store_options.get("metrics_store"):
        raise UserError(
            f"Cannot {verb} annotations: they live in the Elasticsearch metrics store (index "
            "rally-annotations), and none is configured. Pass --metrics-store=URL (or set "
            "ESBENCH_METRICS_STORE); Rally refuses the same without a metrics store."
        )
    return reading_settings(f"{verb} annotation", store_options)


@_add_group().command("annotation")
@click.option("--environment", default=DEFAULT_ENVIRONMENT, show_default=True, help=_ENVIRONMENT_HELP)
@metrics_store_options
@table_options("add annotation")
def add_annotation(
    quiet: bool,
    offline: bool,
    dry_run: bool,
    race_timestamp: str,
    track: str | None,
    chart_type: str | None,
    chart_name: str | None,
    message: str,
    environment: str,
    **store_options: Any,
) -> None:
    """Add an annotation to the charts of one day (Rally's rally-annotations index)."""
    from esbench.results.annotations import add_annotation as store_add
    from esbench.results.annotations import new_annotation

    note = new_annotation(
        environment=environment,
        race_timestamp=race_timestamp,
        track=track,
        chart=chart_type,
        chart_name=chart_name,
        message=message,
    )
    if dry_run:
        click.echo(
            f"Would add annotation with message [{message}] for environment=[{environment}], race timestamp="
            f"[{note.race_timestamp}], track=[{track}], chart type=[{chart_type}], chart name=[{chart_name}]"
        )
        return
    store_add(_settings("add", store_options), note)
    click.echo(f"Successfully added annotation [{note.annotation_id}].")


@list_group.command("annotations")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Show at most N annotations, newest first.",
)
@click.option("--track", default=None, help="Only annotations of this track.")
@click.option(
    "--from-date", default=None, metavar="YYYYMMDD", help="Only annotations of this UTC day or later."
)
@click.option(
    "--to-date", default=None, metavar="YYYYMMDD", help="Only annotations of this UTC day or earlier."
)
@click.option("--environment", default=DEFAULT_ENVIRONMENT, show_default=True, help=_ENVIRONMENT_HELP)
@metrics_store_options
@table_options("list annotations")
def list_annotations(
    quiet: bool,
    offline: bool,
    limit: int,
    track: str | None,
    from_date: str | None,
    to_date: str | None,
    environment: str,
    **store_options: Any,
) -> None:
    """List the annotations of the metrics store, newest first, with Rally's columns."""
    from esbench.results.annotations import LIST_HEADERS
    from esbench.results.annotations import list_annotations as store_list
    from esbench.results.race_listing import parse_list_date

    found = store_list(
        _settings("list", store_options),
        environment=environment,
        track=track,
        from_date=parse_list_date(from_date, "--from-date") if from_date else None,
        to_date=parse_list_date(to_date, "--to-date") if to_date else None,
        limit=limit,
    )
    if not found:
        click.echo(f"No annotations found in environment [{environment}].")
        return
    click.echo("\nAnnotations:\n")
    click.echo(tabulate([a.row() for a in found], headers=list(LIST_HEADERS), disable_numparse=True))


@_delete_group().command("annotation")
@click.option("--id", "ids", required=True, help="The annotation ids to delete, separated by commas.")
@click.option("--dry-run", is_flag=True, help="Show what would be deleted, delete nothing.")
@click.option("--environment", default=DEFAULT_ENVIRONMENT, show_default=True, help=_ENVIRONMENT_HELP)
@metrics_store_options
@table_options("delete annotation")
def delete_annotation(
    ids: str, dry_run: bool, environment: str, quiet: bool, offline: bool, **store_options: Any
) -> None:
    """Delete annotations from the metrics store by id."""
    from esbench.results.annotations import delete_annotation as store_delete

    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    if dry_run:
        if len(wanted) == 1:
            click.echo(f"Would delete annotation with id [{wanted[0]}] in environment [{environment}].")
        else:
            click.echo(f"Would delete {len(wanted)} annotations: {wanted} in environment [{environment}].")
        return
    settings = _settings("delete", store_options)
    for annotation_id in wanted:
        if store_delete(settings, annotation_id):
            click.echo(f"Successfully deleted [{annotation_id}].")
        else:
            click.echo(f"Did not find [{annotation_id}] in environment [{environment}].")


for _command in (add_annotation, list_annotations, delete_annotation):
    reading_store_help(_command, "The Elasticsearch metrics store that holds the annotations")
