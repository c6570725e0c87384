"""``--distribution-repository=auto``: the full distribution when reachable, else Maven's, with a reason.

Loopback servers stand in for Elastic's download location (reachable, 404, never answering); a
closed loopback port and an unresolvable ``.invalid`` host (RFC 6761) stand in for an unreachable one.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback_http import directory_handler, serving
from provfakes import distribution_files, write_tar, write_zip

from esbench.cli import main
from esbench.exceptions import UserError
from esbench.provision.distributions import obtain_distribution
from esbench.provision.repositories import (
    INTEG_TEST_MISSING_MODULES,
    choose_repository,
    distributions_cache,
    pin_repository,
    probe_timeout,
)
from esbench.provision.settings import ProvisionSettings

TEMPLATE = "/elasticsearch-{version}-{os}-{arch}.tar.gz"


class _Server:
    def __init__(self, root: Path) -> None:
        self.requests: list[tuple[str, str]] = []
        self._serving = serving(directory_handler(root, seen=self.requests))
        self.base = "http://" + self._serving.__enter__()

    def stop(self) -> None:
        """Shut the server down (again: a no-op)."""
        self._serving.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def private_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake "full distribution" must never land in a shared cache (ESBENCH_DIST_CACHE in CI),
    # where later races would take it for the real one.
    monkeypatch.delenv("ESBENCH_DIST_CACHE", raising=False)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[_Server, Path]]:
    root = tmp_path / "www"
    root.mkdir()
    srv = _Server(root)
    try:
        yield srv, root
    finally:
        srv.stop()


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve_fake_full_distribution(root: Path, version: str = "8.19.0") -> None:
    from esbench.provision.repositories import elastic_url

    name = elastic_url(version, "http://x" + TEMPLATE).rsplit("/", 1)[-1]
    write_tar(root / name, distribution_files(version))


def _assert_fallback_line(reason: str, url_part: str, problem: str) -> None:
    assert "\n" not in reason
    assert reason.startswith("The full Elasticsearch 8.19.0 distribution is not available (")
    assert url_part in reason and problem in reason
    assert f"lacks the modules {', '.join(INTEG_TEST_MISSING_MODULES)}" in reason
    assert "--distribution-repository=elastic|maven" in reason


def test_auto_takes_the_full_distribution_when_reachable_then_uses_the_cache(
    server: tuple[_Server, Path],
) -> None:
    srv, root = server
    _serve_fake_full_distribution(root)
    settings = ProvisionSettings(elastic_url_template=srv.base + TEMPLATE)
    choice = choose_repository(settings)
    assert (choice.repository, choice.fallback) == ("elastic", False)
    assert srv.base in choice.reason
    dist = obtain_distribution(settings)  # auto, resolved by the hook in distributions.py
    assert dist.flavor == "default"
    assert dist.home.parent == distributions_cache() / "elastic"
    methods = [m for m, _ in srv.requests]
    assert methods.count("HEAD") == 2 and methods.count("GET") == 1
    srv.stop()  # cached now: neither probe nor download
    again = choose_repository(settings)
    assert again.repository == "elastic" and "in the cache" in again.reason
    assert obtain_distribution(settings).home == dist.home


def test_auto_falls_back_to_maven_for_a_closed_port_fast(closed_port: int) -> None:
    settings = ProvisionSettings(elastic_url_template=f"http://127.0.0.1:{closed_port}{TEMPLATE}")
    began = time.monotonic()
    choice = choose_repository(settings, timeout=5)
    assert time.monotonic() - began < 2  # refused at once, no waiting for the timeout
    assert (choice.repository, choice.fallback) == ("maven", True)
    _assert_fallback_line(choice.reason, f"127.0.0.1:{closed_port}", "refused")


def test_auto_falls_back_after_the_probe_timeout_when_nothing_answers() -> None:
    with socket.socket() as silent:  # accepts connections (backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        settings = ProvisionSettings(elastic_url_template=f"http://127.0.0.1:{port}{TEMPLATE}")
        began = time.monotonic()
        choice = choose_repository(settings, timeout=0.5)
        elapsed = time.monotonic() - began
    assert 0.5 <= elapsed < 5
    assert choice.repository == "maven"
    _assert_fallback_line(choice.reason, f"127.0.0.1:{port}", "no answer within 0.5 s")


def test_auto_falls_back_for_an_unknown_host_and_for_http_404(server: tuple[_Server, Path]) -> None:
    dns = choose_repository(ProvisionSettings(elastic_url_template="http://esbench.invalid" + TEMPLATE))
    assert dns.repository == "maven" and "esbench.invalid" in dns.reason
    srv, _ = server  # serves nothing: 404
    missing = choose_repository(ProvisionSettings(elastic_url_template=srv.base + TEMPLATE))
    _assert_fallback_line(missing.reason, srv.base, "HTTP 404")


def test_pinned_repositories_and_paths_never_probe(server: tuple[_Server, Path], tmp_path: Path) -> None:
    srv, root = server
    _serve_fake_full_distribution(root)
    template = srv.base + TEMPLATE
    maven = choose_repository(
        ProvisionSettings(distribution_repository="maven", elastic_url_template=template)
    )
    assert (maven.repository, maven.fallback) == ("maven", False)
    assert "pinned" in maven.reason
    elastic = choose_repository(
        ProvisionSettings(distribution_repository="elastic", elastic_url_template=template)
    )
    assert elastic.repository == "elastic"
    archive = write_zip(tmp_path / "es.zip", distribution_files())
    assert choose_repository(ProvisionSettings(distribution_path=archive)).repository == "local"
    assert srv.requests == []


def test_offline_without_a_cached_full_distribution_takes_maven(server: tuple[_Server, Path]) -> None:
    srv, root = server
    _serve_fake_full_distribution(root)
    choice = choose_repository(ProvisionSettings(offline=True, elastic_url_template=srv.base + TEMPLATE))
    assert choice.repository == "maven" and "--offline" in choice.reason
    assert srv.requests == []


def test_pin_repository_notifies_only_on_fallback(closed_port: int, server: tuple[_Server, Path]) -> None:
    lines: list[str] = []
    down = ProvisionSettings(elastic_url_template=f"http://127.0.0.1:{closed_port}{TEMPLATE}")
    pinned, choice = pin_repository(down, notify=lines.append)
    assert pinned.distribution_repository == "maven" and lines == [choice.reason]
    srv, root = server
    _serve_fake_full_distribution(root)
    up = ProvisionSettings(elastic_url_template=srv.base + TEMPLATE)
    pinned, _ = pin_repository(up, notify=lines.append)
    assert pinned.distribution_repository == "elastic" and len(lines) == 1


def test_cli_download_prints_one_warning_line_and_uses_maven(
    closed_port: int, tmp_path: Path, fake_mvn: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_mvn(write_zip(tmp_path / "art.zip", distribution_files()))
    monkeypatch.setenv("ESBENCH_DISTRIBUTION_URL", f"http://127.0.0.1:{closed_port}{TEMPLATE}")
    result = CliRunner().invoke(main, ["download"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["elasticsearch"].endswith("maven/elasticsearch-8.19.0.zip")
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("[WARNING] ")]
    assert len(warnings) == 1
    _assert_fallback_line(warnings[0].removeprefix("[WARNING] "), str(closed_port), "refused")
    assert len(calls.read_text().splitlines()) == 1


def test_probe_timeout_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ESBENCH_DISTRIBUTION_PROBE_TIMEOUT", raising=False)
    assert probe_timeout() == 3.0
    monkeypatch.setenv("ESBENCH_DISTRIBUTION_PROBE_TIMEOUT", "0.25")
    assert probe_timeout() == 0.25
    monkeypatch.setenv("ESBENCH_DISTRIBUTION_PROBE_TIMEOUT", "soon")
    with pytest.raises(UserError, match="ESBENCH_DISTRIBUTION_PROBE_TIMEOUT='soon'"):
        probe_timeout()
