"""Resumable corpus downloads against a loopback HTTP server with Range support and broken connections."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from loopback_http import QuietHandler, serving

from esbench.corpus.download import RetryPolicy, download, partial_path
from esbench.exceptions import DownloadError

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB, every byte position distinguishable


@dataclass
class Behaviour:
    """What the server does: drop the first ``drops`` responses after ``drop_after`` bytes."""

    drops: int = 0
    drop_after: int = len(PAYLOAD) // 3
    honour_range: bool = True
    status: int = 200
    ranges_seen: list[str | None] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    behaviour = Behaviour()

    class Handler(QuietHandler):
        def do_GET(self) -> None:
            behaviour.ranges_seen.append(self.headers.get("Range"))
            if behaviour.status != 200:
                self.send_error(behaviour.status)
                return
            start = 0
            requested = self.headers.get("Range")
            if requested and behaviour.honour_range:
                start = int(requested.removeprefix("bytes=").rstrip("-"))
                if start >= len(PAYLOAD):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(PAYLOAD)}")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}")
            else:
                self.send_response(200)
            body = PAYLOAD[start:]
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if behaviour.drops:
                behaviour.drops -= 1
                self.wfile.write(body[: behaviour.drop_after])
                self.wfile.flush()
                self.connection.shutdown(2)  # the connection breaks half way
                return
            self.wfile.write(body)

    with serving(Handler) as host:
        yield f"http://{host}/docs.json", behaviour


NO_WAIT = RetryPolicy(attempts=3, backoff_s=0.0)


def test_a_connection_broken_half_way_is_resumed_with_a_range_request(server, tmp_path: Path) -> None:
    url, behaviour = server
    behaviour.drops = 1
    target = tmp_path / "docs.json"
    download(url, target, expected_bytes=len(PAYLOAD), retry=NO_WAIT)
    assert target.read_bytes() == PAYLOAD
    assert behaviour.ranges_seen == [None, f"bytes={behaviour.drop_after}-"]
    assert not partial_path(target).exists()


def test_a_partial_file_from_an_earlier_run_is_continued(server, tmp_path: Path) -> None:
    url, behaviour = server
    behaviour.drops = 5  # more breaks than tries: the run fails and keeps what it received
    target = tmp_path / "docs.json"
    with pytest.raises(DownloadError) as failed:
        download(url, target, expected_bytes=len(PAYLOAD), retry=RetryPolicy(attempts=2, backoff_s=0.0))
    message = str(failed.value)
    assert url in message and str(target) in message and "in 2 tries" in message
    assert "the next run continues from there" in message
    kept = partial_path(target).stat().st_size
    assert kept == 2 * behaviour.drop_after  # two tries, each one third further
    behaviour.drops = 0
    download(url, target, expected_bytes=len(PAYLOAD), retry=NO_WAIT)
    assert target.read_bytes() == PAYLOAD
    assert behaviour.ranges_seen[-1] == f"bytes={kept}-"


def test_a_server_without_range_support_gets_the_whole_file_again(server, tmp_path: Path) -> None:
    url, behaviour = server
    behaviour.drops, behaviour.honour_range = 1, False
    target = tmp_path / "docs.json"
    download(url, target, expected_bytes=len(PAYLOAD), retry=NO_WAIT)
    assert target.read_bytes() == PAYLOAD


def test_a_complete_partial_file_is_accepted_after_416(server, tmp_path: Path) -> None:
    url, _ = server
    target = tmp_path / "docs.json"
    partial_path(target).write_bytes(PAYLOAD)
    download(url, target, retry=NO_WAIT)  # size unknown to the track: the server's 416 ends it
    assert target.read_bytes() == PAYLOAD


def test_a_wrong_size_is_an_error_and_removes_the_partial_file(server, tmp_path: Path) -> None:
    url, _ = server
    target = tmp_path / "docs.json"
    with pytest.raises(DownloadError, match=r"downloaded 1048576 bytes but 7 bytes are expected"):
        download(url, target, expected_bytes=7, retry=NO_WAIT, manual_hint="Place it by hand.")
    assert not target.exists() and not partial_path(target).exists()


def test_a_4xx_answer_is_not_retried(server, tmp_path: Path) -> None:
    url, behaviour = server
    behaviour.status = 404
    with pytest.raises(DownloadError, match=r"HTTP status: 404.*Place it by hand"):
        download(url, tmp_path / "docs.json", retry=NO_WAIT, manual_hint="Place it by hand.")
    assert len(behaviour.ranges_seen) == 1


def test_an_unreachable_host_names_url_and_path_after_the_retries(tmp_path: Path) -> None:
    waits: list[float] = []
    policy = RetryPolicy(attempts=3, backoff_s=0.5)
    with pytest.raises(DownloadError) as failed:
        download("http://127.0.0.1:9/docs.json", tmp_path / "d.json", retry=policy, sleep=waits.append)
    assert waits == [0.0, 0.5, 1.0]  # exponential backoff between the tries
    message = str(failed.value)
    assert "http://127.0.0.1:9/docs.json" in message and str(tmp_path / "d.json") in message
