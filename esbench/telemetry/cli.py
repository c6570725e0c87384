"""Option parsing for ``--telemetry`` / ``--telemetry-params`` and the ``esbench list telemetry`` table."""

from __future__ import annotations

from esbench.console import tabulate
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.registry import DEVICES, create_devices, parse_device_names
from esbench.telemetry.settings import TelemetrySettings
from esbench.track.params import parse_params


def telemetry_settings(devices: str, params: str) -> TelemetrySettings:
    """Parse the two options and check them (devices are built once, so bad values fail now).

    Raises:
        ConfigError / UserError: unknown device or parameter, bad parameter value, unreadable
            ``.json`` file of parameters.
    """
    names = parse_device_names(devices)
    parsed = parse_params(params, option="--telemetry-params") if params.strip() else {}
    create_devices(names, parsed)
    return TelemetrySettings(devices=names, params=parsed)


def _works_with(device: type[TelemetryDevice]) -> str:
    if device.provisioned_only:
        return "provisioned nodes"
    return f"clusters with {device.requires}" if device.requires else "any cluster"


def telemetry_table() -> str:
    """The devices as Rally's ``esrally list telemetry`` prints them, plus where each one works."""
    rows = [[d.name, d.human_name, d.help, _works_with(d)] for d in DEVICES if not d.hidden]
    return (
        "Available telemetry devices:\n\n"
        + tabulate(rows, ["Command", "Name", "Description", "Works with"])
        + "\n\nKeep in mind that each telemetry device may incur a runtime overhead which can skew results."
    )
