"""Click options shared by the provisioning commands and ``esbench race`` (from-distribution).

Usage::

    @main.command()
    @provision_options
    def race(..., **provision_kwargs):
        settings = provision_settings(**provision_kwargs, offline=offline)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from esbench.provision.flavors import OPENSEARCH, DistributionFlavor, get_flavor
from esbench.provision.settings import (
    DEFAULT_DISTRIBUTION_VERSION,
    REPOSITORIES,
    DistributionRepository,
    ProvisionSettings,
)
from esbench.track.params import parse_params

F = TypeVar("F", bound=Callable[..., Any])

#: The keyword arguments :func:`provision_options` adds to a command.
PROVISION_OPTION_NAMES = (
    "distribution_version",
    "distribution_repository",
    "distribution_path",
    "car",
    "car_params",
    "nodes",
    "preserve_install",
    "run_as_user",
    "distribution_flavor",
    *("team_path", "team_repository", "team_revision", "elasticsearch_plugins", "plugin_params"),
)

_OPTIONS = (
    click.option(
        "--distribution-version",
        default=None,
        help=f"Version to provision [default: {DEFAULT_DISTRIBUTION_VERSION}; "
        f"with --distribution-flavor=opensearch: {OPENSEARCH.default_version}].",
    ),
    click.option(
        "--distribution-repository",
        type=click.Choice(REPOSITORIES),
        default="auto",
        show_default=True,
        help="auto: the full distribution from Elastic's download server when it answers within a few "
        "seconds, else maven; "
        "maven: the integ-test distribution via the mvn client (your settings.xml mirrors apply); "
        "elastic: the full tar.gz from Elastic's download server "
        "($ESBENCH_DISTRIBUTION_URL overrides the URL).",
    ),
    click.option(
        "--distribution-path",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        default=None,
        help="A local Elasticsearch .zip/.tar.gz to use instead of a repository.",
    ),
    click.option(
        "--car",
        default="defaults",
        show_default=True,
        help="Car and mixins, comma-separated (e.g. defaults,4gheap,ea); see 'esbench list cars'.",
    ),
    click.option(
        "--car-params",
        default="",
        help="Override car variables: key:value list, inline JSON or a .json file (e.g. heap_size:3g).",
    ),
    click.option(
        "--nodes",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Number of nodes on 127.0.0.1 forming one cluster.",
    ),
    click.option(
        "--preserve-install",
        is_flag=True,
        default=False,
        help="Keep the installation (config, data, logs) after the nodes stop.",
    ),
    click.option(
        "--run-as-user",
        default=None,
        help="Account that runs the nodes when esbench runs as root (default: esbench, created if missing).",
    ),
    click.option(
        "--distribution-flavor",
        type=click.Choice([f.value for f in DistributionFlavor]),
        default=DistributionFlavor.ELASTICSEARCH.value,
        show_default=True,
        help="Product to provision: elasticsearch, or opensearch (its Maven integ-test zip "
        "org.opensearch.distribution.integ-test-zip:opensearch:<version>:zip, e.g. 2.18.0).",
    ),
)


# Teams and plugins (Rally's --team-path, --team-repository, --team-revision, --elasticsearch-plugins,
# --plugin-params); esbench.provision.teams, .teamrepos and .plugins say what they do.
_TEAM_OPTIONS = (
    click.option(
        "--team-path",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        default=None,
        help="A rally-teams checkout: --car names its cars/v1/*.ini and the node configuration is "
        "rendered from its templates, as Rally does.",
    ),
    click.option(
        "--team-repository",
        default=None,
        help="Named team repository ([teams] NAME.url in esbench.ini; 'default' is rally-teams), "
        "cloned into <esbench home>/benchmarks/teams/NAME.",
    ),
    click.option(
        "--team-revision",
        default=None,
        help="Commit, tag or branch of the team repository "
        "(default: the branch for the distribution version).",
    ),
    click.option(
        "--elasticsearch-plugins",
        default=None,
        help="Plugins to install, comma-separated, each PLUGIN or PLUGIN:CONFIG[+CONFIG] "
        "(e.g. analysis-icu); a local zip via [distributions] plugin.NAME.release.url in esbench.ini.",
    ),
    click.option(
        "--plugin-params",
        default=None,
        help="Variables for every plugin's templates: key:value list, inline JSON or a .json file.",
    ),
)


def provision_options(f: F) -> F:
    """Add the provisioning options (:data:`PROVISION_OPTION_NAMES`) to a click command."""
    for option in reversed((*_OPTIONS, *_TEAM_OPTIONS)):
        f = option(f)
    return f


def provision_settings(
    *,
    distribution_version: str | None,
    distribution_repository: str,
    distribution_path: Path | None,
    car: str,
    car_params: str,
    nodes: int,
    preserve_install: bool,
    run_as_user: str | None,
    offline: bool = False,
    distribution_flavor: str = DistributionFlavor.ELASTICSEARCH.value,
    team_path: Path | None = None,
    team_repository: str | None = None,
    team_revision: str | None = None,
    elasticsearch_plugins: str | None = None,
    plugin_params: str | None = None,
) -> ProvisionSettings:
    """Turn the option values into :class:`ProvisionSettings`.

    Raises:
        UserError: unparsable ``--car-params`` or ``--plugin-params``.
    """
    return ProvisionSettings(
        distribution_version=distribution_version or get_flavor(distribution_flavor).default_version,
        distribution_repository=DistributionRepository(distribution_repository),
        distribution_path=distribution_path,
        car=car,
        car_params=parse_params(car_params, option="--car-params") if car_params.strip() else {},
        nodes=nodes,
        preserve_install=preserve_install,
        run_as_user=run_as_user,
        offline=offline,
        distribution_flavor=distribution_flavor,
        team_path=team_path,
        team_repository=team_repository,
        team_revision=team_revision,
        elasticsearch_plugins=elasticsearch_plugins or "",
        plugin_params=parse_params(plugin_params, option="--plugin-params") if plugin_params else {},
    )
