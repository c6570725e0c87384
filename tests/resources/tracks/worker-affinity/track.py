"""A scheduler whose measuring mode needs what its recording mode stored in class state.

Only Rally's plugin API is used, so Rally 2.13 runs this track too. Rally splits the race's
clients (4 here, from ``wide``) over its worker processes once for the whole race, so client 1
of the last block (``paced``) runs in the worker that ran client 0 of ``record-pauses`` and finds
the recorded pauses. A tool that splits each step's clients on its own puts ``paced`` in another
worker, where nothing was recorded, and the scheduler's constructor fails.
"""

import time


class SharedPaceScheduler:
    """Records the pauses between calls (``record-pauses: true``) or paces at their mean."""

    pauses = []  # noqa: RUF012 - state shared by every task of the race in this process

    def __init__(self, params):
        self.recording = params.get("record-pauses", False)
        self.previous = None
        if not self.recording:
            if not SharedPaceScheduler.pauses:
                raise ValueError("no pauses recorded in this worker process; run record-pauses first")
            self.pause = sum(SharedPaceScheduler.pauses) / len(SharedPaceScheduler.pauses)

    def next(self, current):
        if self.recording:
            now = time.perf_counter()
            if self.previous is not None:
                SharedPaceScheduler.pauses.append(now - self.previous)
            self.previous = now
            return 0
        return current + min(self.pause, 0.01)


async def pace_health(es, params):
    await es.cluster.health()
    return 1, "ops"


def register(registry):
    registry.register_runner("pace-health", pace_health, async_runner=True)
    registry.register_scheduler("shared-pace", SharedPaceScheduler)
