"""A schedule whose first request is due ``first-request-at`` seconds after the task starts.

Only Rally's plugin API is used, so Rally 2.13 runs this track too.
"""


class FirstRequestLate:
    """Due times: ``first-request-at``, then every 10 ms. It has ``before_request`` and
    ``after_request``, so Rally hands it the task alone and needs no target-throughput."""

    def __init__(self, task):
        self.first = float(task.params.get("first-request-at", 1.0))

    def before_request(self, now):
        pass

    def after_request(self, now, weight, unit, request_meta_data):
        pass

    def next(self, current):
        return self.first if current == 0 else current + 0.01


async def probe(es, params):
    await es.cluster.health()
    return 1, "ops"


def register(registry):
    registry.register_runner("probe", probe, async_runner=True)
    registry.register_scheduler("first-request-late", FirstRequestLate)
