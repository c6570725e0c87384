"""Runners that talk to the cluster only through the ``es`` client object, as third-party tracks do."""


async def setup(es, params):
    index = "targets-probe"
    await es.indices.create(index=index, settings={"number_of_shards": 1, "number_of_replicas": 0})
    for i in range(params["documents"]):
        await es.index(index=index, id=str(i), document={"n": i, "kind": "probe"})
    await es.indices.refresh(index=index)
    return {"weight": params["documents"], "unit": "docs", "success": True}


async def count(es, params):
    response = await es.search(index="targets-probe", query={"term": {"kind": "probe"}}, size=0)
    hits = response["hits"]["total"]["value"]
    raw = await es.perform_request("GET", "/targets-probe/_count", headers={"accept": "application/json"})
    return {
        "weight": 1,
        "unit": "ops",
        "success": hits == params["expected"] and raw["count"] == params["expected"],
        "hits": hits,
    }


def register(registry):
    registry.register_runner("client-api-setup", setup, async_runner=True)
    registry.register_runner("client-api-count", count, async_runner=True)
