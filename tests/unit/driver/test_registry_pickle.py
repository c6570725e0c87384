"""The registry travels to the workers with its plugin host, which imports the plugin's modules
before the registry's entries are read, and registers the plugin again when they cannot be."""

from __future__ import annotations

import importlib
import pickle
import sys
from pathlib import Path

import pytest
from driver_helpers import task, track

from esbench.driver.worker.registry import Registry, default_registry
from esbench.track.model import Operation

#: What the recording hosts saw, in order (module state: a pickled host carries no state).
CALLS: list[tuple[str, str]] = []

PLUGIN = "class EchoRunner:\n    async def __call__(self, es, params):\n        return None\n"


def _load(root: Path):
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module("plugin_mod")
    finally:
        sys.path.remove(str(root))


class RecordingHost:
    """A plugin host that imports ``plugin_mod`` from the plugin root and registers its runner."""

    def register(self, root: Path, registry: Registry) -> None:
        CALLS.append(("register", str(root)))
        registry.register_runner("echo", _load(root).EchoRunner(), async_runner=True)

    def import_modules(self, root: Path) -> None:
        CALLS.append(("import", str(root)))
        _load(root)

    def activate(self, registry, corpora) -> None:
        CALLS.append(("activate", type(registry).__name__))

    def process(self, track, registry):
        return track

    def plugin_track(self, track, document_files):
        return ("view", track.name)


class ForgetfulHost(RecordingHost):
    """Imports nothing before the entries are read (as a worker whose import went wrong)."""

    def import_modules(self, root: Path) -> None:
        CALLS.append(("import", str(root)))


@pytest.fixture
def plugin_root(tmp_path):
    (tmp_path / "plugin_mod.py").write_text(PLUGIN)
    CALLS.clear()
    yield tmp_path
    sys.modules.pop("plugin_mod", None)


def _pickled(host: RecordingHost, root: Path) -> bytes:
    registry = default_registry(plugins=host)
    host.register(root, registry)
    registry.plugin_root = root
    blob = pickle.dumps(registry)
    # A worker process starts without the plugin's modules.
    sys.modules.pop("plugin_mod")
    CALLS.clear()
    return blob


def test_the_host_imports_the_plugin_before_the_entries_are_read(plugin_root):
    restored = pickle.loads(_pickled(RecordingHost(), plugin_root))
    assert [("import", str(plugin_root))] == CALLS
    assert type(restored.runner("echo").delegate).__name__ == "EchoRunner"
    assert isinstance(restored.plugins, RecordingHost) and restored.plugin_root == plugin_root
    restored.activate()
    assert CALLS[-1] == ("activate", "Registry")


def test_entries_that_cannot_be_read_are_registered_again(plugin_root):
    restored = pickle.loads(_pickled(ForgetfulHost(), plugin_root))
    assert [("import", str(plugin_root)), ("register", str(plugin_root))] == CALLS
    assert type(restored.runner("echo").delegate).__name__ == "EchoRunner"
    assert "bulk" in restored.operation_types()


def test_without_a_host_a_registered_param_source_gets_the_track_itself():
    registry = default_registry()
    registry.register_param_source("mine", lambda trk, params, **kw: {"track": trk.name})
    t = task(Operation(name="q", operation_type="search", param_source="mine"))
    assert registry.param_source(t, track()).partition(0, 1).params() == {"track": track().name}


def test_with_a_host_a_registered_param_source_gets_the_hosts_view():
    registry = default_registry(plugins=RecordingHost())
    registry.register_param_source("mine", lambda trk, params, **kw: {"track": trk})
    t = task(Operation(name="q", operation_type="search", param_source="mine"))
    assert registry.param_source(t, track()).partition(0, 1).params() == {"track": ("view", track().name)}
