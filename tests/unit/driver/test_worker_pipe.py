"""The worker's pipe stays blocking under uvloop, so a large StepDone arrives whole (issue #26).

The one-hour soak lost its results: uvloop's add_reader made the pipe non-blocking, the 4 MB
StepDone of the hour-long task failed half way with BlockingIOError, and the worker took that for
a coordinator gone away and exited with code 0.
"""

from __future__ import annotations

import multiprocessing
import threading

import uvloop

from esbench.driver.worker.loop import watch_pipe


def test_a_message_larger_than_the_pipe_buffer_is_sent_whole_while_the_loop_watches_the_pipe():
    worker_end, coordinator_end = multiprocessing.Pipe()
    loop = uvloop.new_event_loop()
    try:
        watch_pipe(loop, worker_end, lambda: None)
        received: list[bytes] = []
        reader = threading.Thread(target=lambda: received.append(coordinator_end.recv()))
        reader.start()
        message = bytes(range(256)) * 20_000  # 5 MB, far above the socket buffer
        worker_end.send(message)
        reader.join(timeout=30)
        assert received == [message]
        # And the other way: a large message to the worker is read whole after the loop's poll.
        writer = threading.Thread(target=coordinator_end.send, args=(message,))
        writer.start()
        assert worker_end.poll(10) and worker_end.recv() == message
        writer.join(timeout=30)
    finally:
        loop.remove_reader(worker_end.fileno())
        loop.close()
        worker_end.close()
        coordinator_end.close()
