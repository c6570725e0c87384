"""``--telemetry`` / ``--telemetry-params`` checks and ``esbench list telemetry``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.exceptions import ConfigError
from esbench.telemetry.cli import telemetry_settings
from esbench.telemetry.race import check_telemetry
from esbench.telemetry.registry import DEVICES, parse_device_names
from esbench.telemetry.settings import TelemetrySettings


def test_device_names_are_rallys() -> None:
    assert {d.name for d in DEVICES} >= {
        "node-stats",
        "segment-stats",
        "recovery-stats",
        "shard-stats",
        "data-stream-stats",
        "ingest-pipeline-stats",
        "disk-usage-stats",
        "os",
    }
    assert parse_device_names(" node-stats, os,node-stats,") == ("node-stats", "os")


def test_unknown_device_names_the_closest_one() -> None:
    with pytest.raises(ConfigError, match=r"Unknown telemetry device 'nodestats'.*Did you mean 'node-stats'"):
        parse_device_names("nodestats")


def test_params_follow_rallys_parsing_and_defaults() -> None:
    settings = telemetry_settings("node-stats", "node-stats-sample-interval:2,node-stats-include-gc:false")
    assert settings.params == {"node-stats-sample-interval": 2, "node-stats-include-gc": False}
    settings = telemetry_settings("node-stats", '{"node-stats-include-indices-metrics": ["docs"]}')
    assert settings.params["node-stats-include-indices-metrics"] == ["docs"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("node-stats-sample-interval:0", "'node-stats-sample-interval' must be a number greater than zero"),
        ("node-stats-sample-interval:'x'", "greater than zero but was 'x'"),
        ("node-stats-include-gc:maybe", "'node-stats-include-gc' must be true or false"),
        ("node-stats-sampel-interval:1", "Did you mean 'node-stats-sample-interval'"),
        (
            "shard-stats-sample-interval:-5",
            "'shard-stats-sample-interval' must be a number greater than zero",
        ),
    ],
)
def test_bad_params_fail_before_the_race(params: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        telemetry_settings("node-stats,shard-stats", params)


def test_os_needs_provisioned_nodes() -> None:
    check_telemetry(TelemetrySettings(devices=("os",)), provisioned=True)
    with pytest.raises(ConfigError, match=r"device\(s\) os work on the nodes esbench provisions"):
        check_telemetry(TelemetrySettings(devices=("node-stats", "os")), provisioned=False)


def test_list_telemetry() -> None:
    result = CliRunner().invoke(main, ["list", "telemetry"])
    assert result.exit_code == 0
    for device in DEVICES:
        shown = device.name in result.output and device.human_name in result.output
        assert shown != device.hidden, device.name  # Rally's hidden devices stay hidden
    assert "provisioned nodes" in result.output


def test_race_rejects_a_bad_device_without_traceback(tmp_path) -> None:
    result = CliRunner().invoke(
        main, ["race", "--track=eventdata", "--target-hosts=127.0.0.1:1", "--telemetry=node-stat"]
    )
    assert result.exit_code == 64
    assert "Unknown telemetry device 'node-stat'" in result.output
    assert "Traceback" not in result.output
