"""The track params that let a created track's default challenge complete on its source cluster.

The default challenge of ``create-track`` (:mod:`esbench.tracker.create`, after Rally's
``challenges.json.j2``) waits for ``cluster_health`` (default ``green``) with
``retry-until-success``. Elasticsearch never assigns a replica to the node that holds its primary
(the ``SameShardAllocationDecider``), so an index with ``number_of_replicas`` >= the number of data
nodes stays yellow: on a one-node cluster with the default of 1 replica, that wait never ends.
:func:`fitting_params` picks ``cluster_health:yellow`` then, which keeps the index as the source
has it (the same replica count) and waits for what the source cluster itself reaches.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CreatedTrack:
    """A track written by ``create-track``.

    Attributes:
        root: the track directory.
        indices: the indices it re-creates, by name.
        track_params: params that fit the source cluster (empty when the defaults fit).
        reason: why those params, in one sentence ("" when none are needed).
    """

    root: Path
    indices: tuple[str, ...]
    track_params: dict[str, str] = field(default_factory=dict)
    reason: str = ""

    def race_command(self, hosts: Sequence[str]) -> str:
        """``esbench race`` against ``hosts`` (host:port strings, shown without credentials) with
        :attr:`track_params`, quoted for a POSIX shell."""
        from esbench.driver.transport.client import host_for_display

        parts = [
            "esbench",
            "race",
            f"--track-path={self.root}",
            f"--target-hosts={','.join(map(host_for_display, hosts))}",
        ]
        if self.track_params:
            parts.append("--track-params=" + ",".join(f"{k}:{v}" for k, v in self.track_params.items()))
        return " ".join(shlex.quote(p) for p in parts)


def _replicas(settings: Mapping[str, Any]) -> int | None:
    # An index with auto_expand_replicas adapts its replicas to the nodes: it reaches green.
    if str(settings.get("auto_expand_replicas", "false")).lower() not in ("false", ""):
        return None
    try:
        return int(settings.get("number_of_replicas", 1))
    except (TypeError, ValueError):
        return None


def fitting_params(
    health: Mapping[str, Any], index_settings: Mapping[str, Mapping[str, Any]]
) -> tuple[dict[str, str], str]:
    """The track params for the source cluster and the reason, from ``GET /_cluster/health`` and
    each index's ``settings.index`` as ``GET /<index>`` returns them.

    Returns:
        ``({"cluster_health": "yellow"}, reason)`` when some index keeps more replicas than the
        cluster has data nodes besides the primary's, else ``({}, "")``.
    """
    data_nodes = int(health.get("number_of_data_nodes", health.get("number_of_nodes", 1)) or 1)
    short = sorted(
        (name, replicas)
        for name, settings in index_settings.items()
        if (replicas := _replicas(settings)) is not None and replicas >= data_nodes
    )
    if not short:
        return {}, ""
    listed = ", ".join(f"{name} ({replicas} replica(s))" for name, replicas in short)
    return {"cluster_health": "yellow"}, (
        f"the source cluster has {data_nodes} data node(s), too few for the replicas of {listed}: "
        f"green never comes there, so the challenge waits for yellow (number_of_replicas:0 would "
        f"instead race the indices without replicas)"
    )
