"""Rally 2.13 as the oracle of esbench's metrics store: the one way tests find and run ``esrally``
(and, with tests/integration/osb_oracle.py, OSB 2.4.0, Rally's fork, the same way).

* :func:`rally_bin` (a fixture): Rally's executable, ``$ESBENCH_TEST_RALLY`` or
  ``/work/venvs/rally/bin/esrally``. Missing, it skips the test with the install command, except
  under ``CI=true``, where a missing oracle fails the test (a CI run must not pass by skipping).
* :class:`PeerOracle` (``RallyOracle``): the tool with a private home (``HOME``, so ``~/.rally`` or
  ``~/.benchmark`` is the test's) and a configuration ``rally-NAME.ini`` (``benchmark-NAME.ini``)
  whose ``[reporting]`` section names a metrics store node; :meth:`PeerOracle.run` runs one command
  line with ``--configuration-name=NAME``.

Every command runs in a private PID and network namespace (``unshare``, as
/work/shared/reference/peer-oracles.md explains: Rally allows one race per machine, kills
processes that look like Rally's with ``--kill-running-processes``, and its actor system listens on
port 1900). The node lives in the host's namespace, so a Unix socket carries the bytes across
(tests/integration/socket_bridge.py): inside the namespace Rally talks to ``127.0.0.1:9200``.
Rally's index templates map some fields as ``wildcard``, which the integ-test build has no mapper
for: :func:`put_rally_templates` puts them first with ``keyword`` in its place.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import socket_bridge

DEFAULT_RALLY = Path("/work/venvs/rally/bin/esrally")
INSTALL = (
    "python3.12 -m venv RALLYENV && RALLYENV/bin/pip install esrally==2.13.0, "
    "then ESBENCH_TEST_RALLY=RALLYENV/bin/esrally"
)
#: Where Rally reaches the node inside its namespace.
INNER_HOST = "127.0.0.1:9200"
_TEMPLATES = {
    "rally-races": "races-template.json",
    "rally-results": "results-template.json",
    "rally-metrics": "metrics-template.json",
    "rally-annotations": "annotation-template.json",
}


def missing(what: str, *, tool: str = "Rally 2.13", install: str = INSTALL) -> None:
    """Skip the test (locally) or fail it (``CI=true``) because ``what`` is missing."""
    message = f"The {tool} oracle needs {what}; install {tool}: {install}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI runs the {tool} oracle tests: {message}", pytrace=False)
    pytest.skip(message)


def namespaces_available() -> bool:
    """Whether this process may make a network and PID namespace (root, ``unshare`` and ``ip``)."""
    return os.geteuid() == 0 and shutil.which("unshare") is not None and shutil.which("ip") is not None


@pytest.fixture(scope="session")
def rally_bin() -> Path:
    """Rally's ``esrally``: ``$ESBENCH_TEST_RALLY``, else /work/venvs/rally/bin/esrally, else
    ``esrally`` on ``PATH``; the namespace tools checked (:func:`missing` when not)."""
    configured = os.environ.get("ESBENCH_TEST_RALLY")
    candidates = [Path(configured)] if configured else [DEFAULT_RALLY]
    on_path = shutil.which("esrally")
    if not configured and on_path:
        candidates.append(Path(on_path))
    found = next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)
    if found is None:
        missing(f"Rally 2.13 (none at {', '.join(map(str, candidates))})")
    if not namespaces_available():
        missing("root with the unshare and ip commands (a private PID and network namespace)")
    assert found is not None
    return found


def renamed_copy(rally: Path, directory: Path, name: str = "rally-oracle") -> Path:
    """``rally``'s entry point under another file name in ``directory``: Rally's
    ``--kill-running-processes`` (another session's race) looks for ``esrally`` command lines."""
    copy = directory / name
    shutil.copyfile(rally, copy)
    copy.chmod(copy.stat().st_mode | stat.S_IXUSR)
    return copy


def http_json(
    host: str, method: str, path: str, body: object = None, *, ndjson: bool = False, missing_ok: bool = False
) -> Any:
    """The JSON answer of ``METHOD http://host/path`` with ``body`` (JSON, or an NDJSON string);
    None for a 404 when ``missing_ok``."""
    data = None
    if body is not None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    content = "application/x-ndjson" if ndjson else "application/json"
    request = urllib.request.Request(
        f"http://{host}{path}", data=data, method=method, headers={"Content-Type": content}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=60) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        if missing_ok and e.code == 404:
            return None
        raise


def put_rally_templates(rally_bin: Path, host: str) -> None:
    """Put Rally's own four index templates on the node at ``host``, ``wildcard`` mapped as ``keyword``."""
    resources = _rally_package(rally_bin) / "resources"
    for name, file in _TEMPLATES.items():
        text = (resources / file).read_text(encoding="utf-8").replace('"wildcard"', '"keyword"')
        http_json(host, "PUT", f"/_index_template/{name}", json.loads(text))


def delete_rally_store(host: str) -> None:
    """Delete Rally's ``rally-*`` indices and its four index templates from the node at ``host``
    (a test that used the session node as a Rally metrics store leaves it as it found it)."""
    indices = http_json(host, "GET", "/rally-*?expand_wildcards=all") or {}
    for name in indices:
        http_json(host, "DELETE", f"/{name}", missing_ok=True)
    for name in _TEMPLATES:
        http_json(host, "DELETE", f"/_index_template/{name}", missing_ok=True)


def _rally_package(rally_bin: Path) -> Path:
    python = rally_bin.parent / "python"
    out = subprocess.run(
        [str(python), "-c", "import esrally, os; print(os.path.dirname(esrally.__file__))"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip())


@dataclass
class PeerOracle:
    """Rally (or OSB) with its home under ``root`` and the configuration ``name`` pointing at the
    metrics store reached through the Unix socket ``socket_path`` (see the module docstring)."""

    rally_bin: Path
    root: Path
    name: str
    socket_path: Path
    environment: str

    def run(self, *args: str, timeout_s: float = 240) -> subprocess.CompletedProcess[str]:
        """``TOOL ARGS --configuration-name=NAME`` in a private namespace; never raises on a
        non-zero exit (the caller asserts on it)."""
        return self.run_in_namespace(
            [str(self.rally_bin), *args, f"--configuration-name={self.name}"], timeout_s=timeout_s
        )

    def run_in_namespace(
        self, argv: list[str], *, env: dict[str, str] | None = None, timeout_s: float = 240
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` in a private namespace of its own where ``INNER_HOST`` reaches the node, as the
        tool is run (another tool on the same terms: esbench beside Rally); ``env`` is added to the
        environment. Never raises on a non-zero exit."""
        script = "\n".join(
            (
                "set -u",
                "ip link set lo up",
                # Rally's actor system wants an address that is not loopback, and a route.
                "ip addr add 10.213.0.1/32 dev lo && ip route add default dev lo",
                f"{_quote(sys.executable)} {_quote(socket_bridge.__file__)} {INNER_HOST} "
                f"{_quote(str(self.socket_path))} &",
                # Wait until the bridge listens (bash's /dev/tcp connects).
                f"for _ in $(seq 100); do (exec 3<>/dev/tcp/{INNER_HOST.replace(':', '/')}) 2>/dev/null "
                "&& break; sleep 0.1; done",
                f"cd {_quote(str(self.root))}",
                " ".join(_quote(a) for a in argv),
            )
        )
        full_env = {**os.environ, "HOME": str(self.root / "home"), **(env or {})}
        return subprocess.run(
            ["unshare", "--net", "--pid", "--fork", "--mount-proc", "bash", "-c", script],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=full_env,
            check=False,
        )


def _es_store_lines() -> tuple[str, ...]:
    """The ``[reporting]`` lines of a metrics store on the node Rally reaches at :data:`INNER_HOST`."""
    host, _, port = INNER_HOST.partition(":")
    return (
        "datastore.type = elasticsearch",
        f"datastore.host = {host}",
        f"datastore.port = {port}",
        "datastore.secure = False",
        "datastore.user =",
        "datastore.password =",
    )


#: The name the Rally tests know the oracle by.
RallyOracle = PeerOracle


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


@contextlib.contextmanager
def bridged(store_host: str) -> Iterator[Path]:
    """A Unix socket that carries connections to ``store_host`` (``host:port``) for the duration;
    yields its path (see the module docstring)."""
    # AF_UNIX paths are limited to 108 bytes: tmp_path can be longer.
    socket_dir = Path(tempfile.mkdtemp(prefix="peer-bridge-"))
    socket_path = socket_dir / "node.sock"
    host, _, port = store_host.rpartition(":")
    server = socket_bridge.serve_unix_to_tcp(socket_path, host, int(port))
    try:
        yield socket_path
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(socket_dir, ignore_errors=True)


@contextlib.contextmanager
def rally_oracle(
    rally_bin: Path, root: Path, store_host: str, *, environment: str, metrics_store: bool = True
) -> Iterator[RallyOracle]:
    """Rally with its home under ``root``, the configuration ``esbench-oracle`` whose metrics store is
    the node at ``store_host`` (``host:port``, plain HTTP) and whose ``env.name`` is ``environment``;
    Rally's templates are put on the node first (:func:`put_rally_templates`). With ``metrics_store``
    False, Rally keeps its metrics in memory and writes nothing to the node, which it still reaches
    at :data:`INNER_HOST` (a race's target)."""
    name = "esbench-oracle"
    (root / "home" / ".rally").mkdir(parents=True, exist_ok=True)
    ini = "\n".join(
        (
            "[meta]",
            "config.version = 17",
            "[system]",
            f"env.name = {environment}",
            "[node]",
            f"root.dir = {root}/home/.rally/benchmarks",
            f"src.root.dir = {root}/home/.rally/benchmarks/src",
            "[source]",
            "remote.repo.url = https://github.com/elastic/elasticsearch.git",
            "elasticsearch.src.subdir = elasticsearch",
            "[benchmarks]",
            f"local.dataset.cache = {root}/home/.rally/benchmarks/data",
            "[reporting]",
            *(_es_store_lines() if metrics_store else ("datastore.type = in-memory",)),
            "[tracks]",
            "default.url = https://github.com/elastic/rally-tracks",
            "[teams]",
            "default.url = https://github.com/elastic/rally-teams",
            "[defaults]",
            "preserve_benchmark_candidate = false",
            "[distributions]",
            "release.cache = true",
            "",
        )
    )
    (root / "home" / ".rally" / f"rally-{name}.ini").write_text(ini, encoding="utf-8")
    if metrics_store:
        put_rally_templates(rally_bin, store_host)
    with bridged(store_host) as socket_path:
        yield PeerOracle(rally_bin, root, name, socket_path, environment)
