"""The public API is exactly what ``esbench.__all__`` names, and every name resolves."""

from __future__ import annotations

import esbench


def test_every_exported_name_resolves_to_its_object():
    for name in esbench.__all__:
        obj = getattr(esbench, name)
        if name != "__version__":
            assert getattr(obj, "__name__", name) == name


def test_unknown_attribute_raises_attribute_error():
    try:
        esbench.no_such_thing  # noqa: B018
    except AttributeError as e:
        assert "no_such_thing" in str(e)
    else:
        raise AssertionError("expected AttributeError")


def test_all_is_sorted_and_matches_the_lazy_exports():
    assert esbench.__all__ == sorted(esbench.__all__)
    assert set(esbench.__all__) == {*esbench._EXPORTS, "__version__"}
    assert {"run_race", "RaceSettings", "load_track", "Registry", "EsbenchError"} <= set(esbench.__all__)
