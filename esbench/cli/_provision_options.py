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

from esbench.cli.options.entry import CliOption
from esbench.provision.flavors import DistributionFlavor, get_flavor
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
) -> ProvisionSettings:
    """Turn the option values into :class:`ProvisionSettings`.

    Raises:
        UserError: unparsable ``--car-params``.
    """
    return ProvisionSettings(
        distribution_version=distribution_version or get_flavor(distribution_flavor).default_version,
        # Rally's "release" is Elastic's download server, esbench's "elastic".
        distribution_repository=DistributionRepository(
            "elastic" if distribution_repository == "release" else distribution_repository
        ),
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
    )
