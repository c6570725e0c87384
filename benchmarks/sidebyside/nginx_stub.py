"""A loopback nginx that answers like an instant Elasticsearch 8 node (canned responses).

The stub lets the side-by-side benchmark measure the load drivers themselves: every answer is a
constant string served from memory, so the throughput a driver reaches against it is the driver's own
ceiling on this machine. Answers carry ``X-Elastic-Product: Elasticsearch`` and
``content-type: application/json``, which the Python Elasticsearch client 8.x checks.

Served (request bodies are read and discarded by nginx):

- ``GET /``: root info of an 8.x node (Rally reads the version from it);
- ``*/_search``: a short search response with ``hits.total``;
- ``*/_bulk``: ``{"took":1,"errors":false,"items":[...]}`` (one item; esbench and Rally only look at
  ``errors`` unless ``detailed-results`` is on);
- ``/_nodes/stats``, ``/_nodes``, ``*/_stats``, ``/_cluster/health``, ``/_cat/*``, refresh,
  force-merge, flush;
- anything else (index create/delete/exists, templates, settings...): ``{"acknowledged":true}``.

Only the hot paths (``_search``, ``_bulk``) are kept out of the access log, so after a run
``access.log`` shows which administrative endpoints a tool called.

Usage::

    with NginxStub.start(port=0) as stub:   # 0 = a free ephemeral port
        print(stub.host)                     # "127.0.0.1:PORT"
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

#: nginx's request counter (``ngx_http_stub_status_module``); no Elasticsearch API uses the path.
STATUS_PATH = "/_esbench_stub_status"

#: Version the stub claims (the newest 8.x used elsewhere in esbench).
STUB_VERSION = "8.19.0"

_INFO = {
    "name": "esbench-stub",
    "cluster_name": "esbench-stub",
    "cluster_uuid": "stub-cluster-uuid-0000000000",
    "version": {
        "number": STUB_VERSION,
        "build_flavor": "default",
        "build_type": "tar",
        "build_hash": "0000000000000000000000000000000000000000",
        "build_date": "2025-07-24T00:00:00.000000000Z",
        "build_snapshot": False,
        "lucene_version": "9.12.2",
        "minimum_wire_compatibility_version": "7.17.0",
        "minimum_index_compatibility_version": "7.0.0",
    },
    "tagline": "You Know, for Search",
}

SEARCH_RESPONSE = {
    "took": 1,
    "timed_out": False,
    "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
    "hits": {
        "total": {"value": 10000, "relation": "gte"},
        "max_score": 1.0,
        "hits": [
            {
                "_index": "stub",
                "_id": "1",
                "_score": 1.0,
                "_source": {"message": "stub document", "status": 200},
            }
        ],
    },
}

BULK_RESPONSE = {
    "took": 1,
    "errors": False,
    "items": [
        {
            "index": {
                "_index": "stub",
                "_id": "1",
                "_version": 1,
                "result": "created",
                "_shards": {"total": 1, "successful": 1, "failed": 0},
                "_seq_no": 0,
                "_primary_term": 1,
                "status": 201,
            }
        }
    ],
}

_HEALTH = {
    "cluster_name": "esbench-stub",
    "status": "green",
    "timed_out": False,
    "number_of_nodes": 1,
    "number_of_data_nodes": 1,
    "active_primary_shards": 1,
    "active_shards": 1,
    "relocating_shards": 0,
    "initializing_shards": 0,
    "unassigned_shards": 0,
    "delayed_unassigned_shards": 0,
    "number_of_pending_tasks": 0,
    "number_of_in_flight_fetch": 0,
    "task_max_waiting_in_queue_millis": 0,
    "active_shards_percent_as_number": 100.0,
}

_NODE_ID = "stubnode000000000000aa"

_NODES_INFO = {
    "_nodes": {"total": 1, "successful": 1, "failed": 0},
    "cluster_name": "esbench-stub",
    "nodes": {
        _NODE_ID: {
            "name": "esbench-stub",
            "transport_address": "127.0.0.1:9300",
            "host": "127.0.0.1",
            "ip": "127.0.0.1",
            "version": STUB_VERSION,
            "build_flavor": "default",
            "build_type": "tar",
            "build_hash": "0000000000000000000000000000000000000000",
            "roles": ["data", "ingest", "master"],
            "attributes": {},
            "settings": {"node": {"name": "esbench-stub"}},
            "os": {
                "name": "Linux",
                "pretty_name": "Linux",
                "arch": "amd64",
                "version": "6.0",
                "available_processors": 2,
                "allocated_processors": 2,
            },
            "process": {"id": 1, "mlockall": False},
            "jvm": {
                "pid": 1,
                "version": "17",
                "vm_name": "OpenJDK 64-Bit Server VM",
                "vm_version": "17",
                "vm_vendor": "Stub",
                "mem": {"heap_max_in_bytes": 1073741824},
                "gc_collectors": ["G1 Young Generation", "G1 Old Generation"],
                "input_arguments": [],
            },
            "http": {"bound_address": ["127.0.0.1:9200"], "publish_address": "127.0.0.1:9200"},
            "plugins": [],
            "modules": [],
        }
    },
}

_ZERO_INDEX_STATS = {
    "docs": {"count": 0, "deleted": 0},
    "store": {"size_in_bytes": 0, "total_data_set_size_in_bytes": 0, "reserved_in_bytes": 0},
    "indexing": {
        "index_total": 0,
        "index_time_in_millis": 0,
        "index_current": 0,
        "index_failed": 0,
        "delete_total": 0,
        "delete_time_in_millis": 0,
        "throttle_time_in_millis": 0,
        "is_throttled": False,
    },
    "merges": {
        "current": 0,
        "total": 0,
        "total_time_in_millis": 0,
        "total_docs": 0,
        "total_size_in_bytes": 0,
        "total_throttled_time_in_millis": 0,
    },
    "refresh": {"total": 0, "total_time_in_millis": 0},
    "flush": {"total": 0, "total_time_in_millis": 0},
    "segments": {
        "count": 0,
        "memory_in_bytes": 0,
        "terms_memory_in_bytes": 0,
        "stored_fields_memory_in_bytes": 0,
        "doc_values_memory_in_bytes": 0,
        "points_memory_in_bytes": 0,
        "norms_memory_in_bytes": 0,
        "term_vectors_memory_in_bytes": 0,
    },
    "translog": {"operations": 0, "size_in_bytes": 0, "uncommitted_size_in_bytes": 0},
    "query_cache": {"memory_size_in_bytes": 0},
    "fielddata": {"memory_size_in_bytes": 0},
    "request_cache": {"memory_size_in_bytes": 0},
}

# One primary shard: Rally's end-of-race statistics take min/median/max over primary shards and fail
# on an empty list (esrally metrics.py ``shard_stats``).
_INDICES_STATS = {
    "_shards": {"total": 1, "successful": 1, "failed": 0},
    "_all": {"primaries": _ZERO_INDEX_STATS, "total": _ZERO_INDEX_STATS},
    "indices": {
        "stub": {
            "uuid": "stub-index-uuid",
            "health": "green",
            "status": "open",
            "primaries": _ZERO_INDEX_STATS,
            "total": _ZERO_INDEX_STATS,
            "shards": {
                "0": [
                    {
                        "routing": {"state": "STARTED", "primary": True, "node": _NODE_ID},
                        **_ZERO_INDEX_STATS,
                    }
                ]
            },
        }
    },
}

_COLLECTOR = {"collection_count": 0, "collection_time_in_millis": 0}
_NODES_STATS = {
    "_nodes": {"total": 1, "successful": 1, "failed": 0},
    "cluster_name": "esbench-stub",
    "nodes": {
        _NODE_ID: {
            "name": "esbench-stub",
            "host": "127.0.0.1",
            "ip": "127.0.0.1",
            "roles": ["data", "ingest", "master"],
            "indices": _ZERO_INDEX_STATS,
            "jvm": {
                "timestamp": 0,
                "uptime_in_millis": 1,
                "mem": {"heap_used_in_bytes": 0, "heap_max_in_bytes": 1073741824, "pools": {}},
                "gc": {"collectors": {"young": _COLLECTOR, "old": _COLLECTOR}},
                "buffer_pools": {},
            },
            "ingest": {
                "total": {"count": 0, "time_in_millis": 0, "current": 0, "failed": 0},
                "pipelines": {},
            },
            "thread_pool": {},
            "breakers": {},
            "transport": {"rx_count": 0, "rx_size_in_bytes": 0, "tx_count": 0, "tx_size_in_bytes": 0},
            "process": {"cpu": {"percent": 0, "total_in_millis": 0}},
            "os": {"cpu": {"percent": 0}},
            "fs": {"total": {}},
            "indexing_pressure": {"memory": {"current": {}, "total": {}}},
        }
    },
}

#: Answers served as files (too long for an nginx config string).
STATIC_FILES = {
    "nodes_stats.json": _NODES_STATS,
    "nodes_info.json": _NODES_INFO,
    "indices_stats.json": _INDICES_STATS,
}

_SHARDS_OK = {"_shards": {"total": 1, "successful": 1, "failed": 0}}
_ACK = {"acknowledged": True, "shards_acknowledged": True, "index": "stub"}


def _nginx_string(obj: object) -> str:
    """``obj`` as compact JSON inside nginx single quotes (``'`` and ``\\`` escaped)."""
    text = json.dumps(obj, separators=(",", ":"))
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def render_config(*, prefix: Path, port: int, workers: int | str = "auto") -> str:
    """The nginx.conf text for a stub under ``prefix`` listening on ``127.0.0.1:port``.

    ``keepalive_requests`` is raised from nginx's default of 1,000 so that a connection is never
    closed in the middle of a run (a reconnect would be charged to the load driver);
    ``client_max_body_size 0`` accepts bulk bodies of any size.
    """
    p = prefix
    return f"""\
daemon off;
master_process on;
worker_processes {workers};
pid {p}/nginx.pid;
error_log {p}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    client_body_temp_path {p}/tmp/body;
    proxy_temp_path {p}/tmp/proxy;
    fastcgi_temp_path {p}/tmp/fastcgi;
    uwsgi_temp_path {p}/tmp/uwsgi;
    scgi_temp_path {p}/tmp/scgi;
    access_log {p}/access.log;
    keepalive_requests 100000000;
    keepalive_timeout 600s;
    client_max_body_size 0;
    client_body_buffer_size 1m;
    default_type application/json;
    server_tokens off;
    server {{
        root {p}/html;
        listen 127.0.0.1:{port} reuseport backlog=4096;
        add_header X-Elastic-Product Elasticsearch always;
        # The request counter of the side-by-side benchmark (requests per run, cost.py).
        location = {STATUS_PATH} {{ access_log off; stub_status; }}
        location ~ /_search$ {{ access_log off; return 200 {_nginx_string(SEARCH_RESPONSE)}; }}
        location ~ /_bulk$ {{ access_log off; return 200 {_nginx_string(BULK_RESPONSE)}; }}
        # nginx caps one config token at ~4 KB: the long answers are files (GET only).
        location ~ ^/_nodes/([^/]+/)?stats {{ rewrite ^ /nodes_stats.json break; }}
        location ~ ^/_nodes {{ rewrite ^ /nodes_info.json break; }}
        location ~ /_stats {{ rewrite ^ /indices_stats.json break; }}
        location ~ ^/_cluster/health {{ return 200 {_nginx_string(_HEALTH)}; }}
        location ~ ^/_cat/ {{ return 200 '[]'; }}
        location ~ /_(refresh|flush|forcemerge)$ {{ return 200 {_nginx_string(_SHARDS_OK)}; }}
        location = / {{ return 200 {_nginx_string(_INFO)}; }}
        location / {{ return 200 {_nginx_string(_ACK)}; }}
    }}
}}
"""


def parse_stub_status(text: str) -> int:
    """The ``requests`` count of an nginx ``stub_status`` page: its third line holds ``accepts
    handled requests`` (``" 16 16 31 "``).

    Raises:
        ValueError: not a stub_status page.
    """
    lines = text.splitlines()
    if len(lines) < 3 or not lines[1].strip().startswith("server accepts handled requests"):
        raise ValueError(f"not an nginx stub_status page: {text[:200]!r}")
    return int(lines[2].split()[2])


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1 (the kernel's ephemeral choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def nginx_binary() -> str | None:
    """Path of the nginx executable, or None (Debian installs it under /usr/sbin, not always on PATH)."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


@dataclass
class NginxStub:
    """A running stub: ``host`` is ``"127.0.0.1:PORT"``; ``stop()`` ends it and removes its prefix dir."""

    port: int
    prefix: Path
    process: subprocess.Popen[bytes]
    keep_prefix: bool = False

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @classmethod
    def start(
        cls, *, port: int = 0, workers: int | str = "auto", timeout: float = 10.0, keep_prefix: bool = False
    ) -> NginxStub:
        """Write a config into a fresh ``/tmp/esbench-nginx-*`` prefix and start nginx in the foreground.

        Args:
            port: TCP port on 127.0.0.1; 0 picks a free one.
            workers: nginx ``worker_processes``.
            timeout: seconds to wait until ``GET /`` answers.
            keep_prefix: keep the prefix dir (logs) after ``stop()``.

        Raises:
            RuntimeError: nginx is not installed, or did not answer within ``timeout`` (its error log is
                included in the message).
        """
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed: run `apt-get install -y nginx-light` (as root).")
        port = port or free_port()
        prefix = Path(tempfile.mkdtemp(prefix="esbench-nginx-", dir="/tmp"))
        (prefix / "tmp").mkdir()
        # Workers run as "nobody" when the master is root: they must be able to traverse the prefix.
        prefix.chmod(0o755)
        html = prefix / "html"
        html.mkdir()
        for name, body in STATIC_FILES.items():
            (html / name).write_text(json.dumps(body, separators=(",", ":")))
        html.chmod(0o755)
        conf = prefix / "nginx.conf"
        conf.write_text(render_config(prefix=prefix, port=port, workers=workers))
        with open(prefix / "stderr.log", "wb") as err_file:
            proc = subprocess.Popen(
                [binary, "-p", str(prefix), "-c", str(conf)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err_file,
                start_new_session=True,
            )
        stub = cls(port=port, prefix=prefix, process=proc, keep_prefix=keep_prefix)
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                err = stub._logs()
                stub.stop()
                raise RuntimeError(f"nginx exited with code {proc.returncode} at start:\n{err}")
            try:
                with urllib.request.urlopen(f"http://{stub.host}/", timeout=1) as r:
                    if r.status == 200:
                        return stub
            except OSError:
                pass
            if time.monotonic() > deadline:
                err = stub._logs()
                stub.stop()
                raise RuntimeError(f"nginx did not answer on {stub.host} within {timeout} s:\n{err}")
            time.sleep(0.05)

    def _logs(self) -> str:
        parts = []
        for name in ("stderr.log", "error.log"):
            f = self.prefix / name
            if f.exists():
                parts.append(f.read_text(errors="replace")[-2000:])
        return "\n".join(parts)

    def admin_requests(self) -> list[str]:
        """The request lines of the access log (administrative calls; hot paths are not logged)."""
        f = self.prefix / "access.log"
        if not f.exists():
            return []
        out = []
        for line in f.read_text(errors="replace").splitlines():
            first = line.find('"')
            second = line.find('"', first + 1)
            if first >= 0 and second > first:
                status = line[second + 1 :].split()[0] if line[second + 1 :].split() else "?"
                out.append(f"{line[first + 1 : second]} -> {status}")
        return out

    def requests_served(self) -> int:
        """nginx's count of client requests since start, all workers (the ``requests`` field of
        ``stub_status``, https://nginx.org/en/docs/http/ngx_http_stub_status_module.html); the
        request that reads it is included.

        Raises:
            OSError: the stub does not answer.
            ValueError: the answer is not a stub_status page.
        """
        with urllib.request.urlopen(f"http://{self.host}{STATUS_PATH}", timeout=10) as r:
            return parse_stub_status(r.read().decode())

    def stop(self, timeout: float = 10.0) -> None:
        """Stop nginx (SIGTERM to its process group, SIGKILL after ``timeout`` s); idempotent."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout)
        if not self.keep_prefix:
            shutil.rmtree(self.prefix, ignore_errors=True)

    def __enter__(self) -> NginxStub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
