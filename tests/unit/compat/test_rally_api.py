"""The ``esrally`` compatibility package: what plugins import, and how esbench reports misuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from esbench.compat import shim
from esbench.compat.plugins import load_plugins
from esbench.compat.processors import DefaultTrackPreparator, TrackProcessor, effective_processors
from esbench.driver.worker.pluginerrors import PluginError
from esbench.driver.worker.registry import Registry, default_registry
from esbench.driver.worker.runners.bulk import ndjson_body
from esbench.exceptions import TrackError
from esbench.track import load_track
from esbench.track.model import Track

shim.install()

TRACKS_DIR = Path(__file__).resolve().parents[2] / "resources" / "tracks"


def plugin_track(tmp_path: Path, code: str) -> Track:
    (tmp_path / "track.py").write_text(code)
    return Track(name=tmp_path.name, root=tmp_path, challenges=())


def test_esrally_resolves_to_the_compat_package_without_rally():
    import esrally
    import esrally.exceptions

    assert shim.uses_compat_api()
    assert Path(esrally.__file__).is_relative_to(shim.API_ROOT)
    # "import esrally" alone gives access to esrally.utils.net, as rally-tracks' security track uses it.
    assert callable(esrally.utils.net.download_http)
    assert issubclass(esrally.exceptions.TrackConfigError, TrackError)


def test_rally_exceptions_keep_rallys_hierarchy_and_constructor():
    from esrally import exceptions

    err = exceptions.DataError("corpus broken", cause=ValueError("bad line"))
    assert isinstance(err, exceptions.RallyError)
    assert err.full_message == "corpus broken\n\tbad line"
    assert issubclass(exceptions.RallyTaskAssertionError, exceptions.RallyAssertionError)


def test_unsupported_rally_import_names_the_import_and_the_plugin_line(tmp_path):
    track = plugin_track(
        tmp_path, "import os\nfrom esrally.mechanic import team\n\ndef register(r):\n    pass\n"
    )
    with pytest.raises(TrackError) as info:
        load_plugins(track, default_registry())
    message = str(info.value)
    assert "esrally.mechanic" in message
    assert f"{tmp_path / 'track.py'}:2" in message
    assert "docs/tracks.md" in message


def test_a_missing_name_of_a_provided_module_is_unsupported_too(tmp_path):
    track = plugin_track(tmp_path, "from esrally.track.params import NoSuchSource\n")
    with pytest.raises(TrackError, match=r"cannot import name 'NoSuchSource'.*track.py:1"):
        load_plugins(track, default_registry())


def test_register_raising_a_rally_error_is_one_paragraph_with_the_line(tmp_path):
    code = (
        "from esrally.exceptions import TrackConfigError\n\n"
        "def register(registry):\n"
        "    raise TrackConfigError('needs a newer cluster')\n"
    )
    with pytest.raises(PluginError) as info:
        load_plugins(plugin_track(tmp_path, code), default_registry())
    message = str(info.value)
    assert "register()" in message
    assert "TrackConfigError: needs a newer cluster" in message
    assert f"{tmp_path / 'track.py'}:4" in message
    assert "\n" not in message


def test_meta_data_is_rallys_and_sync_registration_is_rejected_like_rally():
    registry = Registry()
    assert registry.meta_data == {"rally_version": "2.13.0", "async_runner": True}

    async def runner(es, params):
        return None

    with pytest.raises(TrackError, match="async_runner=True"):
        registry.register_runner("x", runner)
    registry.register_runner("x", runner, async_runner=True)
    assert "x" in registry.operation_types()


def test_processor_registry_rule_of_rally():
    class Custom(TrackProcessor):
        pass

    default, custom = DefaultTrackPreparator(), Custom()
    assert [type(p) for p in effective_processors([])] == [DefaultTrackPreparator]
    # The first custom processor drops the default one registered before it ...
    assert effective_processors([default, custom]) == [custom]
    # ... and a default one registered after a custom one stays (http_logs does this).
    assert effective_processors([custom, default]) == [custom, default]


def test_trackview_round_trip_keeps_the_model():
    from esbench.compat.trackconvert import from_rally, to_rally

    for name in ("weblogs", "applogs", "minimal"):
        track = load_track(path=TRACKS_DIR / name)
        assert from_rally(to_rally(track), track) == track, name


def test_trackview_changes_reach_the_model():
    from esbench.compat.trackconvert import from_rally, to_rally
    from esbench.compat.trackview import Operation, Task

    track = load_track(path=TRACKS_DIR / "minimal")
    view = to_rally(track)
    challenge = view.challenges[0]
    count = next(t for t in challenge.schedule if t.name == "count")
    count.params["target-throughput"] = "20 docs/s"
    del count.params["target-interval"]
    count.iterations = 7
    challenge.schedule.append(Task("extra", Operation("extra", "sleep", params={"duration": 0.1}), clients=2))
    changed = from_rally(view, track).challenges[0]
    task = next(t for t in changed.tasks() if t.name == "count")
    assert task.iterations == 7
    assert (task.target_throughput.value, task.target_throughput.unit) == (20.0, "docs/s")
    assert task.target_interval is None
    extra = changed.tasks()[-1]
    assert (extra.name, extra.operation.operation_type, extra.clients) == ("extra", "sleep", 2)


def test_operation_type_enum_like_rallys():
    from esrally.track import OperationType

    assert OperationType.WaitForTransform.to_hyphenated_string() == "wait-for-transform"
    assert OperationType.from_hyphenated_string("composite-agg") is OperationType.CompositeAgg
    assert OperationType.ForceMerge.admin_op and not OperationType.Bulk.admin_op
    with pytest.raises(KeyError):
        OperationType.from_hyphenated_string("no-such-op")


def test_rally_builtin_runner_classes_return_rallys_dict():
    import asyncio

    from esrally.driver.runner import BulkIndex, PutSettings, Runner

    assert issubclass(PutSettings, Runner) and BulkIndex().operation_type == "bulk"

    class Es:
        class http:
            @staticmethod
            async def request(method, target, body=None, headers=None, timeout=None):
                from esbench.driver.transport.http import RawResponse

                return RawResponse(status=200, body=b'{"acknowledged":true}')

    result = asyncio.run(PutSettings()(Es(), {"body": {"transient": {"x": 1}}}))
    assert result["success"] is True and result["weight"] == 1 and result["unit"] == "ops"


def test_opts_and_io_helpers(tmp_path):
    from esrally.utils import io, opts

    assert opts.to_dict("a:1,b:'x',c:true,d:none") == {"a": 1, "b": "x", "c": True, "d": None}
    assert opts.to_dict('{"k": [1]}') == {"k": [1]}
    data = tmp_path / "d.json"
    data.write_text("l1\nl2\nl3\n")
    from esrally.track.params import Slice

    lines = list(Slice(io.FileSource, 1, 2).open(str(data), "rt", 5))
    assert lines == [["l2\n", "l3\n"]]
    assert io.splitext("docs.json.tar.gz") == ("docs.json", ".tar.gz")


@pytest.mark.parametrize(
    "body",
    [
        '{"index":{}}\n{"a":1}',
        b'{"index":{}}\n{"a":1}\n',
        ['{"index":{}}', '{"a":1}'],
        [b'{"index":{}}\n', {"a": 1}],
    ],
)
def test_bulk_bodies_in_every_form_rallys_client_accepts(body):
    out = ndjson_body(body)
    assert out.endswith(b"\n")
    assert [json.loads(line) for line in out.splitlines()] == [{"index": {}}, {"a": 1}]
