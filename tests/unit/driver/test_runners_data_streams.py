"""Request shapes of the data-stream runners, checked against Rally's.

Rally 2.13 ``esrally/driver/runner.py``: ``CreateDataStream`` calls
``es.indices.create_data_stream(name=data_stream, params=request_params)`` for each of
``data-streams`` (``PUT /_data_stream/<name>``) and returns ``{"weight": len(data_streams),
"unit": "ops"}``; ``DeleteDataStream`` calls ``es.indices.delete_data_stream(name=..., ignore=[404])``
when ``only-if-exists`` is false, else first checks ``es.indices.exists(index=...)`` and deletes
only existing ones. The integ-test distribution this suite provisions has no data-streams module, so
these shapes are what can be proven here; the real-node test in
``tests/integration/test_runners_es.py`` runs wherever the node has the API.
"""

from __future__ import annotations

from test_runners import Routes, params_for, run


async def test_create_data_stream_puts_each_stream_and_weighs_them() -> None:
    routes = Routes({})
    result = await run("create-data-stream", routes, {"data-streams": ["a", "b"]})
    assert [(m, t.split("?")[0]) for m, t, _ in routes.requests] == [
        ("PUT", "/_data_stream/a"),
        ("PUT", "/_data_stream/b"),
    ]
    assert result.success and result.weight == 2


async def test_create_data_stream_stops_at_the_first_failure_with_what_it_created() -> None:
    routes = Routes({("PUT", "/_data_stream/b"): (405, b'{"error":"Incorrect HTTP method"}')})
    result = await run("create-data-stream", routes, {"data-streams": ["a", "b", "c"]})
    assert [t for _, t, _ in routes.requests] == ["/_data_stream/a", "/_data_stream/b"]
    assert not result.success and result.error_type == "405" and result.weight == 1


async def test_delete_data_stream_ignores_a_missing_stream_without_only_if_exists() -> None:
    routes = Routes({("DELETE", "/_data_stream/gone"): (404, b'{"error":"no such data stream"}')})
    params = params_for("delete-data-stream", data_stream="gone", only_if_exists=False)
    result = await run("delete-data-stream", routes, params)
    assert [(m, t.split("?")[0]) for m, t, _ in routes.requests] == [("DELETE", "/_data_stream/gone")]
    assert result.success
