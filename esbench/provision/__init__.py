"""Provisioning: supply, install, start and stop local Elasticsearch clusters (Rally's from-distribution).

Public API::

    provision_cluster(settings: ProvisionSettings, *, race_dir: Path | None) -> ProvisionedCluster
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports

_EXPORTS = {
    "ProvisionedCluster": "esbench.provision.provisioned",
    "provision_cluster": "esbench.provision.provisioned",
    "DEFAULT_DISTRIBUTION_VERSION": "esbench.provision.settings",
    "ProvisionSettings": "esbench.provision.settings",
}

__all__ = [
    "DEFAULT_DISTRIBUTION_VERSION",
    "ProvisionSettings",
    "ProvisionedCluster",
    "provision_cluster",
]

if TYPE_CHECKING:
    from esbench.provision.provisioned import ProvisionedCluster, provision_cluster
    from esbench.provision.settings import DEFAULT_DISTRIBUTION_VERSION, ProvisionSettings

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
