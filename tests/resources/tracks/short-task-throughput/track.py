"""Runners of the short-task-throughput fixture; only Rally's plugin API, so Rally runs it too."""

import json
import time


async def bulk_docs(es, params):
    lines = []
    for i in range(params["docs"]):
        lines.append('{"index": {}}')
        lines.append(json.dumps({"n": i, "@timestamp": 1700000000000 + i * 1000}))
    await es.bulk(index=params["index"], body="\n".join(lines) + "\n")
    return params["docs"], "docs"


async def timed_minmax(es, params):
    # Wall clock, as the test compares times taken in several worker processes.
    start = time.time()
    await es.search(
        index=params["index"],
        body={"size": 0, "aggs": {"lo": {"min": {"field": "n"}}, "hi": {"max": {"field": "n"}}}},
    )
    end = time.time()
    with open(params["request_log"], "a", encoding="utf-8") as log:
        log.write(f"{start} {end}\n")
    return 1, "ops"


def register(registry):
    registry.register_runner("bulk-docs", bulk_docs, async_runner=True)
    registry.register_runner("timed-minmax", timed_minmax, async_runner=True)
