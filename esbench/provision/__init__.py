"""Provisioning: supply, install, start and stop local Elasticsearch clusters (Rally's from-distribution).

Public API::

    provision_cluster(settings: ProvisionSettings, *, race_dir: Path | None) -> ProvisionedCluster
"""

from __future__ import annotations

from esbench.provision.cluster import ProvisionedCluster, provision_cluster
from esbench.provision.settings import DEFAULT_DISTRIBUTION_VERSION, ProvisionSettings

__all__ = ["DEFAULT_DISTRIBUTION_VERSION", "ProvisionSettings", "ProvisionedCluster", "provision_cluster"]
