"""The provisioning options (declared in the option table, :mod:`esbench.cli.options.cluster`) for the
commands that provision a cluster: ``download``, ``install``, ``start``, the planning commands,
``query`` and ``load`` (``race`` takes them with the rest of its table).

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

from esbench.cli.options.entry import CliOption
from esbench.provision.flavors import DistributionFlavor, flavor_of_version, get_flavor
from esbench.provision.settings import DistributionRepository, ProvisionSettings
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
    "cluster_name",
    "runtime_jdk",
    *("team_path", "team_repository", "team_revision", "elasticsearch_plugins", "plugin_params"),
)


def _table_entries() -> tuple[CliOption, ...]:
    from esbench.cli.options import OPTIONS

    by_name = {e.name: e for e in OPTIONS}
    return tuple(by_name[name] for name in PROVISION_OPTION_NAMES)


def provision_options(f: F) -> F:
    """Add the provisioning options (:data:`PROVISION_OPTION_NAMES`) to a click command."""
    from esbench.cli.options import add_option

    for entry in reversed(_table_entries()):
        add_option(f, entry.click_option())
    return f


def _flavor_given() -> bool:
    """Whether ``--distribution-flavor`` was on the command line (or set by the command, e.g. OSB's
    ``run``); outside a click command (the Python API), True: nothing is inferred."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or "distribution_flavor" not in ctx.params:
        return True
    return ctx.get_parameter_source("distribution_flavor") is not click.core.ParameterSource.DEFAULT


def _info(line: str) -> None:
    ctx = click.get_current_context(silent=True)
    if ctx is None or not ctx.params.get("quiet"):
        click.echo(f"[INFO] {line}", err=True)


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
    cluster_name: str | None = None,
    runtime_jdk: str | None = None,
    team_path: Path | None = None,
    team_repository: str | None = None,
    team_revision: str | None = None,
    elasticsearch_plugins: str | None = None,
    plugin_params: str | None = None,
) -> ProvisionSettings:
    """Turn the option values into :class:`ProvisionSettings`, for every command that provisions
    (``download``, ``install``, ``start``, ``race``'s from-distribution, planning, ``query``, ``load``):

    * the product: ``--distribution-version`` of an OpenSearch-only major (``2.19.1``;
      :data:`~esbench.provision.flavors.OPENSEARCH_ONLY_MAJORS`) without ``--distribution-flavor``
      provisions OpenSearch, as OSB does for the same command line, with an info line on stderr (none
      with ``--quiet``). OSB's ``download``/``install``/``start`` share Rally's names, so the version is
      the only signal; no Elasticsearch esbench or Rally can provision has such a major;
    * ``--distribution-repository=release`` (Rally's and OSB's default): Elastic's download server for
      Elasticsearch (``elastic``), OpenSearch's release server for OpenSearch (OSB's meaning).

    Raises:
        UserError: unparsable ``--car-params`` or ``--plugin-params``.
    """
    inferred = flavor_of_version(distribution_version)
    if inferred is not None and distribution_flavor != inferred.value and not _flavor_given():
        _info(
            f"--distribution-version={distribution_version} is an OpenSearch version (Elasticsearch has no "
            f"such major that esbench can provision): provisioning OpenSearch. Give "
            f"--distribution-flavor to say which product."
        )
        distribution_flavor = inferred.value
    if distribution_repository == DistributionRepository.RELEASE and distribution_flavor == "elasticsearch":
        # Rally's "release" is Elastic's download server, esbench's "elastic".
        distribution_repository = DistributionRepository.ELASTIC.value
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
        cluster_name=cluster_name,
        runtime_jdk=runtime_jdk,
        team_path=team_path,
        team_repository=team_repository,
        team_revision=team_revision,
        elasticsearch_plugins=elasticsearch_plugins or "",
        plugin_params=parse_params(plugin_params, option="--plugin-params") if plugin_params else {},
    )
