"""``--telemetry`` / ``--telemetry-params`` as typed settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class TelemetrySettings:
    """The telemetry devices of a race.

    Attributes:
        devices: device names (``--telemetry=node-stats,os``), checked by
            :func:`esbench.telemetry.registry.parse_device_names`.
        params: ``--telemetry-params`` (Rally's parsing rules: ``k:v`` list, inline JSON or a
            ``.json`` file), e.g. ``{"node-stats-sample-interval": 2}``.
    """

    devices: tuple[str, ...] = ()
    params: Mapping[str, object] = field(default_factory=dict)
