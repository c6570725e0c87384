"""What one elasticsearch-py API call costs the client when a track's runner passes ``body=`` and
``params=``, as rally-eventdata-track's ``fieldstats`` runner does (issue 38).

    python benchmarks/bench_client_deprecation_cost.py [--calls N] [--depth D]
    /work/venvs/rally/bin/python benchmarks/bench_client_deprecation_cost.py   # Rally's client

Runs in any virtualenv with elasticsearch-py (esbench's, or Rally 2.13's with its pinned 8.6.1).
The transport answers at once with a canned search response, so what is measured is the client's
own work per call: ``AsyncElasticsearch.search(index=..., body=..., params={})`` against the same
call with the query as keyword arguments. ``--depth`` nests the call that many coroutine frames
deep, since ``warn_stacklevel`` (elasticsearch-py's ``compat.py``) walks the whole stack with
``inspect.stack()``; a runner called by Rally's executor sits about 10 frames deep.
Prints the elasticsearch-py version, microseconds of CPU per call for both forms, and the command.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import warnings
from typing import Any

import elasticsearch
from elastic_transport import ApiResponseMeta, HttpHeaders, NodeConfig

BODY = {"query": {"match_all": {}}, "size": 0, "aggs": {"maxval": {"max": {"field": "@timestamp"}}}}
ANSWER = {"took": 1, "hits": {"total": {"value": 1, "relation": "eq"}, "hits": []}, "aggregations": {}}


async def _canned(*args: Any, **kwargs: Any) -> tuple[ApiResponseMeta, dict[str, Any]]:
    meta = ApiResponseMeta(
        status=200,
        http_version="1.1",
        headers=HttpHeaders({"content-type": "application/json"}),
        duration=0.0,
        node=NodeConfig("http", "127.0.0.1", 9200),
    )
    return meta, dict(ANSWER)


async def _nested(depth: int, call: Any) -> None:
    if depth:
        await _nested(depth - 1, call)
    else:
        await call()


async def _per_call_us(es: Any, calls: int, depth: int, deprecated: bool) -> float:
    async def call() -> None:
        if deprecated:
            await es.search(index="elasticlogs-*", body=BODY, params={})
        else:
            await es.search(index="elasticlogs-*", **BODY)

    await _nested(depth, call)  # first call: imports and caches outside the measurement
    start = time.process_time()
    for _ in range(calls):
        await _nested(depth, call)
    return (time.process_time() - start) / calls * 1e6


async def _main(calls: int, depth: int) -> None:
    es = elasticsearch.AsyncElasticsearch("http://127.0.0.1:9200")
    es._verified_elasticsearch = True
    es.transport.perform_request = _canned  # type: ignore[method-assign]
    warnings.simplefilter("ignore")
    version = ".".join(map(str, elasticsearch.__version__))
    plain = await _per_call_us(es, calls, depth, deprecated=False)
    deprecated = await _per_call_us(es, calls, depth, deprecated=True)
    print(f"elasticsearch-py {version}, Python {sys.version.split()[0]}, {calls} calls, {depth} frames deep")
    print(f"search(**query):                 {plain:10.1f} us CPU per call")
    print(f"search(body=query, params={{}}):   {deprecated:10.1f} us CPU per call")
    print(f"command: {sys.executable} {' '.join(sys.argv)}")
    await es.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--depth", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(_main(args.calls, args.depth))


if __name__ == "__main__":
    main()
