"""An OSB workload's plugin runner gets opensearch-py's ``transport.perform_request`` (the body, not
elasticsearch-py's ``(meta, body)`` pair), through a runner registered with OSB's registry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from esbench.compat.osbclient import osb_client
from esbench.compat.osbregistry import WorkloadRegistry
from esbench.driver.worker.registry import default_registry


@dataclass
class _Response:
    body: Any


class _Client:
    """Records what it was asked, as elasticsearch-py's client would be asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any, Any, Any]] = []
        self.transport = "the client's own transport"
        self.cluster_name = "c1"

    async def perform_request(
        self, method: str, path: str, *, params: Any, headers: Any, body: Any
    ) -> _Response:
        self.calls.append((method, path, params, headers, body))
        return _Response({"_shards": {"failed": 0}})


async def test_perform_request_answers_with_the_body_and_the_rest_is_the_client() -> None:
    client = _Client()
    view = osb_client(client)
    body = await view.transport.perform_request(
        "GET", "/_plugins/_knn/warmup/target", params={"pretty": "true"}
    )
    assert body == {"_shards": {"failed": 0}}
    assert client.calls == [("GET", "/_plugins/_knn/warmup/target", {"pretty": "true"}, None, None)]
    assert view.cluster_name == "c1"
    assert {
        name: type(c).__name__ for name, c in osb_client({"default": client, "remote": client}).items()
    } == {
        "default": "OsbClient",
        "remote": "OsbClient",
    }


async def test_a_runner_registered_through_osbs_registry_is_called_with_the_view() -> None:
    seen: list[Any] = []

    async def warmup(opensearch: Any, params: dict[str, Any]) -> dict[str, Any]:
        response = await opensearch.transport.perform_request(
            "GET", f"/_plugins/_knn/warmup/{params['index']}"
        )
        seen.append(response)
        return {"success": response["_shards"]["failed"] == 0}

    registry = default_registry()
    WorkloadRegistry(registry).register_runner("warmup-knn-indices", warmup, async_runner=True)
    result = await registry.runner("warmup-knn-indices")(_Client(), {"index": "target"})
    assert result.success and seen == [{"_shards": {"failed": 0}}]
