"""Race control's stages around a stubbed cluster and driver: the schedule is filtered once per race
(race control filters, the driver gets the filtered challenge and no filters), and the result records
what each stage found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from esbench.driver.settings import DriverOutcome, DriverSettings
from esbench.exceptions import ConfigError
from esbench.racecontrol import ClusterInfo, run_race
from esbench.racecontrol import run as stages
from esbench.records import STATUS_COMPLETED
from esbench.settings import RaceSettings

TRACK = {
    "description": "two tasks, no corpus",
    "schedule": [
        {"name": "first", "operation": {"operation-type": "cluster-health"}, "iterations": 1},
        {"name": "second", "operation": {"operation-type": "cluster-health"}, "iterations": 1},
    ],
}


@pytest.fixture
def driven(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A track directory; connect, the driver and the final snapshot stubbed. Yields what they saw."""
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "track.json").write_text(json.dumps(TRACK))
    seen: dict[str, Any] = {"track_path": tmp_path / "two", "filtered": 0}
    real_filter = stages.filter_schedule

    def counting_filter(*args: Any, **kwargs: Any) -> Any:
        seen["filtered"] += 1
        return real_filter(*args, **kwargs)

    def fake_driver(**kwargs: Any) -> DriverOutcome:
        seen["driver"] = kwargs
        return DriverOutcome(tasks=(), status=STATUS_COMPLETED)

    # OpenSearch: the requirements check (Elasticsearch's module catalogue) is skipped.
    info = ClusterInfo(version="2.18.0", nodes=3, flavor="opensearch")
    monkeypatch.setattr(stages, "connect", lambda hosts, settings, known=None: (info, None))
    monkeypatch.setattr(stages, "filter_schedule", counting_filter)
    monkeypatch.setattr(stages, "run_challenge", fake_driver)
    monkeypatch.setattr(stages, "final_snapshot", lambda hosts, settings: None)
    return seen


def test_the_schedule_is_filtered_once_and_the_driver_gets_it_filtered(driven: dict[str, Any]) -> None:
    settings = RaceSettings(
        track_path=driven["track_path"],
        target_hosts=("127.0.0.1:9",),
        driver=DriverSettings(include_tasks=("second",)),
    )
    result = run_race(settings)
    assert driven["filtered"] == 1
    driver = driven["driver"]
    assert [t.name for t in driver["challenge"].tasks()] == ["second"]
    assert driver["settings"].include_tasks == () and driver["settings"].exclude_tasks == ()
    assert driver["hosts"] == ("127.0.0.1:9",)
    # What the connect stage found reaches the result and the driver's client options.
    assert (result.cluster_version, result.cluster_nodes, result.cluster_flavor) == (
        "2.18.0",
        3,
        "opensearch",
    )
    assert driver["client_options"].distribution_flavor == "opensearch"
    assert (result.track, result.challenge, result.car, result.pipeline) == (
        "two",
        "default",
        "external",
        "benchmark-only",
    )


def test_a_filter_matching_no_task_leaves_no_race_behind(driven: dict[str, Any]) -> None:
    settings = RaceSettings(
        track_path=driven["track_path"],
        target_hosts=("127.0.0.1:9",),
        driver=DriverSettings(include_tasks=("third",)),
    )
    with pytest.raises(ConfigError, match="--include-tasks=third matches no task"):
        run_race(settings)
    assert "driver" not in driven
    from esbench.home import home_subdir

    assert list(home_subdir("races").iterdir()) == []
