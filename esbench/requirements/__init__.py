"""What a track needs from a cluster, what the cluster has, and the check between them.

Public API::

    track_needs(track, *, challenge=None, tasks=None) -> tuple[Need, ...]          # needs.py (static)
    probe_cluster(hosts, client_options=None) -> ClusterCapabilities               # probe.py
    check_requirements(needs, capabilities) -> RequirementsReport                  # check.py
    verify_race_requirements(track=, tasks=, hosts=, client_options=, on_error=, warn=)

The module mapping (which module registers which analyzer, processor, script language...) is in
:mod:`esbench.requirements.catalog`, with the Elasticsearch source file of each table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports

_EXPORTS = {
    "MissingModules": "esbench.requirements.check",
    "RequirementsReport": "esbench.requirements.check",
    "check_requirements": "esbench.requirements.check",
    "missing_paragraph": "esbench.requirements.check",
    "verify_race_requirements": "esbench.requirements.check",
    "Need": "esbench.requirements.needs",
    "track_needs": "esbench.requirements.needs",
    "ClusterCapabilities": "esbench.requirements.probe",
    "probe_cluster": "esbench.requirements.probe",
}

__all__ = [
    "ClusterCapabilities",
    "MissingModules",
    "Need",
    "RequirementsReport",
    "check_requirements",
    "missing_paragraph",
    "probe_cluster",
    "track_needs",
    "verify_race_requirements",
]

if TYPE_CHECKING:
    from esbench.requirements.check import (
        MissingModules,
        RequirementsReport,
        check_requirements,
        missing_paragraph,
        verify_race_requirements,
    )
    from esbench.requirements.needs import Need, track_needs
    from esbench.requirements.probe import ClusterCapabilities, probe_cluster

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
