"""``master-node-stats``: which node is the elected master, on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``MasterNodeStats``): an internal device
that ``esrally list telemetry`` does not show (Rally runs it in every race; esbench when named in
``--telemetry``); parameter ``master-node-stats-sample-interval`` (default 30 s). Each sample reads
``GET _cluster/state/master_node`` and the master's name from ``GET _nodes/<id>``; Rally stores the
name as a document. esbench, whose series hold numbers, records the series ``master`` per node that
was master at some sample: 1 while it is the master, 0 after another node took over (``node`` = its
name). The report shows ``Master node changes`` (how often the master differed from the previous
sample) and a note names the master(s).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from esbench.records import ClusterMetric
from esbench.telemetry.device import DeviceOutput, TelemetryDevice


class MasterNodeStats(TelemetryDevice):
    """Regularly samples the name of the elected master node (Rally's hidden ``master-node-stats``)."""

    name = "master-node-stats"
    human_name = "Master Node Stats"
    help = "Regularly samples the name of the elected master node"
    params: ClassVar[Mapping[str, object]] = {"master-node-stats-sample-interval": 30}
    hidden = True

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("master-node-stats-sample-interval")
        self.masters: list[str] = []
        self.changes = 0

    async def sample(self, timestamp: float) -> None:
        master_id = (await self.client.cluster.state(metric="master_node")).body.get("master_node")
        if not isinstance(master_id, str):
            raise RuntimeError("the cluster has no elected master")
        nodes = (await self.client.nodes.info(node_id=master_id, metric="os")).body.get("nodes") or {}
        name = str((nodes.get(master_id) or {}).get("name", master_id))
        if self.masters and self.masters[-1] != name:
            self.changes += 1
        if name not in self.masters:
            self.masters.append(name)
        else:  # the last entry is the current master
            self.masters.remove(name)
            self.masters.append(name)
        values = {("master", n): 1.0 if n == name else 0.0 for n in self.masters}
        self.table.add(timestamp, values, {})

    def summary(self) -> tuple[ClusterMetric, ...]:
        if not self.masters:
            return ()
        return (ClusterMetric(name="Master node changes", value=float(self.changes), unit=""),)

    def output(self) -> DeviceOutput:
        out = super().output()
        if self.masters:
            out.notes.append(f"Master Node Stats: the elected master was {', '.join(self.masters)}")
        return out
