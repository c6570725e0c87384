"""``esbench list pipelines`` and ``esbench list elasticsearch-plugins`` (Rally's list kinds).

The rows come from their owning layers: :mod:`esbench.racecontrol.pipelines` and
:mod:`esbench.provision.bundled`.
"""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import list_group
from esbench.cli.options import table_options
from esbench.console import tabulate
from esbench.provision.settings import DEFAULT_DISTRIBUTION_VERSION, REPOSITORIES


@list_group.command("pipelines")
@table_options("list pipelines")
def list_pipelines_command(quiet: bool, offline: bool) -> None:
    """List Rally's pipelines, saying which ones esbench serves."""
    from esbench.racecontrol.pipelines import pipeline_rows

    click.echo("Available pipelines:\n")
    click.echo(tabulate(pipeline_rows(), headers=["Name", "Description"]))


@list_group.command("elasticsearch-plugins")
@click.option(
    "--distribution-version",
    default=DEFAULT_DISTRIBUTION_VERSION,
    show_default=True,
    help="The Elasticsearch version whose distribution to list.",
)
@click.option(
    "--distribution-repository",
    type=click.Choice(REPOSITORIES),
    default="auto",
    show_default=True,
    help="Where the distribution comes from, as for 'esbench race'.",
)
@click.option(
    "--distribution-path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A local Elasticsearch .zip/.tar.gz to list instead.",
)
@table_options("list elasticsearch-plugins")
def list_elasticsearch_plugins_command(
    distribution_version: str,
    distribution_repository: str,
    distribution_path: Path | None,
    offline: bool,
    quiet: bool,
) -> None:
    """List the modules and plugins of the Elasticsearch distribution esbench provisions (esbench
    installs no further plugins), downloading it into the cache first when it is not there."""
    from esbench.provision.bundled import bundled_components
    from esbench.provision.distributions import obtain_distribution
    from esbench.provision.repositories import pin_repository
    from esbench.provision.settings import DistributionRepository, ProvisionSettings

    settings = ProvisionSettings(
        distribution_version=distribution_version,
        distribution_repository=DistributionRepository(distribution_repository),
        distribution_path=distribution_path,
        offline=offline,
    )
    settings = pin_repository(settings, notify=lambda line: click.echo(f"[WARNING] {line}", err=True))[0]
    distribution = obtain_distribution(settings)
    components = bundled_components(distribution.home)
    click.echo(
        f"Modules and plugins of Elasticsearch {distribution.version} ({distribution.flavor} distribution):\n"
    )
    if not components:
        click.echo("No Elasticsearch plugins are available.")
        return
    rows = [(c.name, c.kind.value, c.description) for c in components]
    click.echo(tabulate(rows, headers=["Name", "Kind", "Description"]))
