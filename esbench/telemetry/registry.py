"""The telemetry devices esbench knows, by their ``--telemetry`` name, and their construction.

Names and order follow Rally's ``esrally/telemetry.py`` ``list_telemetry`` where Rally has the
device; then ``os``, esbench's own, and ``segment-replication-stats``, OSB 2.4.0's only
(``osbenchmark/telemetry.py``; OSB lists every other device of its list under Rally's name);
``master-node-stats`` and ``blob-store-stats``, which Rally accepts but does not list, come last and
are hidden from ``esbench list telemetry`` too.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from esbench.exceptions import ConfigError
from esbench.telemetry.device import TelemetryDevice, check_param_names
from esbench.telemetry.devices.blob_store_stats import BlobStoreStats
from esbench.telemetry.devices.ccr_stats import CcrStats
from esbench.telemetry.devices.data_stream_stats import DataStreamStats
from esbench.telemetry.devices.disk_usage_stats import DiskUsageStats
from esbench.telemetry.devices.geoip_stats import GeoIpStats
from esbench.telemetry.devices.heapdump import Heapdump
from esbench.telemetry.devices.ingest_pipeline_stats import IngestPipelineStats
from esbench.telemetry.devices.jvm_options import FlightRecorder, Gc, JitCompiler
from esbench.telemetry.devices.master_node_stats import MasterNodeStats
from esbench.telemetry.devices.node_stats import NodeStats
from esbench.telemetry.devices.os_stats import OsStats
from esbench.telemetry.devices.recovery_stats import RecoveryStats
from esbench.telemetry.devices.searchable_snapshots_stats import SearchableSnapshotsStats
from esbench.telemetry.devices.segment_replication_stats import SegmentReplicationStats
from esbench.telemetry.devices.segment_stats import SegmentStats
from esbench.telemetry.devices.shard_stats import ShardStats
from esbench.telemetry.devices.transform_stats import TransformStats

DEVICES: tuple[type[TelemetryDevice], ...] = (
    JitCompiler,
    Gc,
    FlightRecorder,
    Heapdump,
    NodeStats,
    RecoveryStats,
    CcrStats,
    SegmentStats,
    TransformStats,
    SearchableSnapshotsStats,
    ShardStats,
    DataStreamStats,
    IngestPipelineStats,
    DiskUsageStats,
    GeoIpStats,
    OsStats,
    SegmentReplicationStats,
    MasterNodeStats,
    BlobStoreStats,
)
BY_NAME: Mapping[str, type[TelemetryDevice]] = {d.name: d for d in DEVICES}


def parse_device_names(text: str | Sequence[str]) -> tuple[str, ...]:
    """``"node-stats, os"`` (or a list) -> ``("node-stats", "os")``: known names, duplicates removed.

    Raises:
        ConfigError: an unknown name (with the closest known name and the list of devices).
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    names: list[str] = []
    for raw in items:
        name = raw.strip()
        if not name:
            continue
        if name not in BY_NAME:
            close = difflib.get_close_matches(name, list(BY_NAME), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise ConfigError(
                f"Unknown telemetry device '{name}' in --telemetry.{hint} Known devices: "
                f"{', '.join(d.name for d in DEVICES if not d.hidden)} (see 'esbench list telemetry')."
            )
        if name not in names:
            names.append(name)
    return tuple(names)


def create_devices(names: Sequence[str], params: Mapping[str, object]) -> list[TelemetryDevice]:
    """Build the devices ``names`` with ``params`` (``--telemetry-params``).

    Raises:
        ConfigError: an unknown device or parameter name, or a bad parameter value.
    """
    classes = [BY_NAME[n] for n in parse_device_names(list(names))]
    check_param_names(params, classes, DEVICES)
    return [cls(params) for cls in classes]
