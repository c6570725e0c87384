"""track.py plugins: import beside track.json, call register(registry) with a duck-typed registry."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from track_test_helpers import TRACKS_DIR, simple_track

from esbench.compat.plugins import load_plugins, package_name
from esbench.exceptions import TrackError
from esbench.track import load_track
from esbench.track.pluginfile import has_plugins


class FakeRegistry:
    """Records every registration call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, ...]] = []

    def register_param_source(self, name: str, source: Any) -> None:
        self.calls.append(("param_source", name, source))

    def register_runner(self, name: str, runner: Any, **kwargs: Any) -> None:
        self.calls.append(("runner", name, runner, kwargs))

    def register_scheduler(self, name: str, scheduler: Any) -> None:
        self.calls.append(("scheduler", name, scheduler))

    def register_track_processor(self, processor: Any) -> None:
        self.calls.append(("track_processor", processor))


def test_fixture_track_plugin_imports_sibling_module_and_registers() -> None:
    track = load_track(path=TRACKS_DIR / "applogs")
    registry = FakeRegistry()
    load_plugins(track, registry)
    kinds = [(c[0], c[1]) for c in registry.calls]
    assert kinds == [("scheduler", "fixed-test-scheduler"), ("runner", "noop")]
    assert registry.calls[1][3] == {"async_runner": True}
    scheduler = registry.calls[0][2]
    assert scheduler.__module__ == f"{package_name(track.root)}.track"
    assert scheduler(None, 5).next(1.0) == 2.0
    # The sibling directory is only on sys.path while importing.
    assert str(TRACKS_DIR) not in sys.path


def test_plugin_with_relative_import_and_package_dir(make_track) -> None:
    files = {
        "track.json": simple_track(),
        "track.py": (
            "from .helpers import NAME\n\n"
            "def register(registry):\n    registry.register_param_source(NAME, dict)\n"
        ),
        "helpers.py": "NAME = 'from-helpers'\n",
    }
    track = load_track(path=make_track(files, name="rel"))
    registry = FakeRegistry()
    load_plugins(track, registry)
    assert registry.calls == [("param_source", "from-helpers", dict)]

    pkg = {
        "track.json": simple_track(),
        "track/__init__.py": "def register(registry):\n    registry.register_track_processor('p')\n",
    }
    track = load_track(path=make_track(pkg, name="pkg"))
    assert has_plugins(track.root)
    registry = FakeRegistry()
    load_plugins(track, registry)
    assert registry.calls == [("track_processor", "p")]


def test_same_directory_name_in_two_places_does_not_clash(make_track, tmp_path) -> None:
    a = make_track(
        {"track.json": simple_track(), "track.py": "def register(r):\n    r.register_scheduler('a', 1)\n"},
        name="x/same",
    )
    b = make_track(
        {"track.json": simple_track(), "track.py": "def register(r):\n    r.register_scheduler('b', 2)\n"},
        name="y/same",
    )
    ra, rb = FakeRegistry(), FakeRegistry()
    load_plugins(load_track(path=a), ra)
    load_plugins(load_track(path=b), rb)
    assert (ra.calls, rb.calls) == ([("scheduler", "a", 1)], [("scheduler", "b", 2)])


def test_no_plugin_is_a_no_op(make_track) -> None:
    track = load_track(path=make_track({"track.json": simple_track()}, name="none"))
    registry = FakeRegistry()
    load_plugins(track, registry)
    assert registry.calls == []


@pytest.mark.parametrize(
    ("code", "match"),
    [
        ("import does_not_exist_xyz\n", "Could not import the track plugin.*does_not_exist_xyz"),
        ("x = 1\n", "has no register"),
        ("def register(registry):\n    raise ValueError('boom')\n", "failed in register.*boom"),
    ],
)
def test_plugin_errors(make_track, code: str, match: str) -> None:
    track = load_track(
        path=make_track({"track.json": simple_track(), "track.py": code}, name=f"e{abs(hash(code))}")
    )
    with pytest.raises(TrackError, match=match):
        load_plugins(track, FakeRegistry())
