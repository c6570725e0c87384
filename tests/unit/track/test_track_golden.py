"""esbench renders and loads the fixture tracks exactly like Rally (golden files made by esrally).

The golden files under ``tests/resources/tracks/golden`` were produced by the real esrally 2.13
(see ``tests/resources/tracks/README.md``); these tests do not need esrally.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from track_test_helpers import FIXED_NOW, TRACKS_DIR, cases, dump_track, golden

from esbench.track import load_track, render_track_source
from esbench.track.loader import track_parameter_names

CASES = cases()
IDS = [f"{track}-{case['case']}" for track, case in CASES]


def _kwargs(track: str, case: dict[str, Any]) -> dict[str, Any]:
    return {
        "path": TRACKS_DIR / track,
        "params": case["params"],
        "clock": lambda: FIXED_NOW,
        "build_flavor": case.get("build_flavor", "default"),
        "serverless_operator": case.get("serverless_operator", False),
    }


@pytest.mark.parametrize(("track", "case"), CASES, ids=IDS)
def test_render_equals_rally_render_track(track: str, case: dict[str, Any]) -> None:
    rendered = render_track_source(**_kwargs(track, case))
    assert json.loads(rendered) == golden(track, case["case"], "render")


@pytest.mark.parametrize(("track", "case"), CASES, ids=IDS)
def test_render_output_is_formatted_like_rally(track: str, case: dict[str, Any]) -> None:
    rendered = render_track_source(**_kwargs(track, case))
    expected = (TRACKS_DIR / "golden" / track / f"{case['case']}.render.json").read_text(encoding="utf-8")
    assert rendered + "\n" == expected


@pytest.mark.parametrize(("track", "case"), CASES, ids=IDS)
def test_model_equals_rally_model(track: str, case: dict[str, Any]) -> None:
    assert dump_track(load_track(**_kwargs(track, case))) == golden(track, case["case"], "model")


def _without_rally_test_mode_throttle(model: dict[str, Any]) -> dict[str, Any]:
    # Rally keeps test-mode tasks throttled at sys.maxsize; esbench drops the throttle (documented).
    for challenge in model["challenges"]:
        for item in challenge["schedule"]:
            for task in item["parallel"]["tasks"] if "parallel" in item else [item]:
                if task["target_throughput"] and task["target_throughput"][0] >= sys.maxsize:
                    task["target_throughput"] = None
                    task["params"].pop("target-throughput", None)
    return model


@pytest.mark.parametrize(("track", "case"), CASES, ids=IDS)
def test_test_mode_equals_rally_test_mode(track: str, case: dict[str, Any]) -> None:
    loaded = load_track(test_mode=True, **_kwargs(track, case))
    expected = _without_rally_test_mode_throttle(golden(track, case["case"], "test-mode"))
    assert dump_track(loaded) == expected


@pytest.mark.parametrize(("track", "case"), CASES, ids=IDS)
def test_esbench_sees_every_param_rally_sees(track: str, case: dict[str, Any]) -> None:
    rally = golden(track, case["case"], "params")
    assert rally["unused"] == [] or track == "taxis"
    names = track_parameter_names(path=TRACKS_DIR / track, params=case["params"])
    assert set(rally["referenced"]) - {"build_flavor", "serverless_operator", "now"} <= set(names)


def test_params_rally_misses_in_includes_are_accepted() -> None:
    # taxis uses these only in an {% include %}d challenge and a run-time rally.collect; Rally would
    # reject them as unused, esbench scans included files too.
    rally = golden("taxis", "params", "params")
    assert set(rally["unused"]) == {"bulk_indexing_clients", "bulk_size", "index_settings"}
    track = load_track(path=TRACKS_DIR / "taxis", params={"bulk_size": 5000, "bulk_indexing_clients": 16})
    task = track.default_challenge.tasks()[2]
    assert task.clients == 16
