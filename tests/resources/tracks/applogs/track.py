from shared_helpers import scheduler_name


class FixedScheduler:
    def __init__(self, task, target_throughput):
        self.rate = target_throughput

    def next(self, current):
        return current + 1.0


async def noop(es, params):
    return {"weight": 1, "unit": "ops", "success": True}


def register(registry):
    registry.register_scheduler(scheduler_name(), FixedScheduler)
    registry.register_runner("noop", noop, async_runner=True)
