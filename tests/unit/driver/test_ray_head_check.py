"""--ray-address is checked within a few seconds before ray.init, which retries a missing head for
minutes while printing its own retry lines (issue 26: > 90 s at 127.0.0.1:1)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import esbench

from esbench.driver.coordinator.pools.ray_pool import check_ray_head
from esbench.exceptions import DriverError


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def listener() -> Iterator[tuple[socket.socket, list[bytes]]]:
    """A TCP server on loopback; the test decides what it answers (``answers``)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    answers: list[bytes] = []

    def serve() -> None:
        with server:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                with conn:
                    conn.recv(1024)
                    if answers:
                        conn.sendall(answers[0])
                    time.sleep(1.5)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server, answers
    server.close()


def test_nothing_listening_fails_at_once_saying_what_was_tried(closed_port: int) -> None:
    started = time.monotonic()
    with pytest.raises(DriverError) as caught:
        check_ray_head("127.0.0.1", closed_port)
    assert time.monotonic() - started < 3.5
    message = str(caught.value)
    assert f"127.0.0.1:{closed_port}" in message and "TCP connection" in message
    assert "Connection refused" in message and "limit 3 s" in message and "--ray-address" in message


def test_a_server_that_is_not_grpc_is_refused(listener: tuple[socket.socket, list[bytes]]) -> None:
    server, answers = listener
    answers.append(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
    port = server.getsockname()[1]
    with pytest.raises(DriverError, match="not Ray's GCS") as caught:
        check_ray_head("127.0.0.1", port, timeout=1.0)
    assert "b'HTTP/1.1 '" in str(caught.value)  # the first 9 bytes: not a frame header


def test_a_server_that_never_answers_is_given_up_after_the_timeout(
    listener: tuple[socket.socket, list[bytes]],
) -> None:
    port = listener[0].getsockname()[1]
    started = time.monotonic()
    with pytest.raises(DriverError, match="sent no HTTP/2 frame"):
        check_ray_head("127.0.0.1", port, timeout=0.5)
    assert time.monotonic() - started < 1.5


def test_the_issue_command_fails_within_10_s(closed_port: int, tmp_path: Path) -> None:
    track = tmp_path / "track.json"
    track.write_text(
        '{"version": 2, "schedule": [{"operation": {"name": "i", "operation-type": "node-stats"}}]}'
    )
    started = time.monotonic()
    proc = esbench(
        "race",
        f"--track-path={track}",
        "--target-hosts=127.0.0.1:9",
        "--load-driver=ray",
        f"--ray-address=127.0.0.1:{closed_port}",
        timeout=60,
        home=tmp_path,
    )
    assert time.monotonic() - started < 10, proc.stderr
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert f"Cannot join the Ray cluster at 127.0.0.1:{closed_port}" in proc.stderr
