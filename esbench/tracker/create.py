"""``esbench create-track``: a track made from indices (or data streams) of a live cluster, as Rally's
``create-track`` makes it (``esrally/tracker/``: ``tracker.py``, ``index.py``, ``corpus.py`` and the
``track.json.j2``/``challenges.json.j2``/``operations.json.j2`` resources).

For each index, ``<index>.json`` holds its mappings and settings, cleaned the way Rally cleans them:
the ephemeral settings ``uuid``, ``creation_date``, ``version``, ``provided_name`` and ``store`` are
dropped and ``number_of_shards``/``number_of_replicas`` become track params defaulting to the
index's values. ``<index>-documents.json`` and ``<index>-documents-1k.json`` (the first 1,000, for
``--test-mode``), each also ``.bz2``-compressed, hold every document's ``_source`` (read with a
scroll in ``_doc`` order). Indices named by a pattern of ``_all``/``*`` skip hidden ones (``.``-prefixed).
``track.json`` collects ``operations/*.json`` and ``challenges/*.json``; the default challenge
deletes and creates the indices, waits for green and bulk-indexes the corpora (track params
``bulk_size`` 5000, ``bulk_indexing_clients`` 8, ``ingest_percentage`` 100, ``cluster_health`` green).
"""

from __future__ import annotations

import asyncio
import bz2
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import elastic_transport

from esbench.driver.settings import timeout_text
from esbench.driver.transport.client import ClientOptions, ConnectionSettings, create_client
from esbench.exceptions import ConnectionFailed, UserError
from esbench.tracker.fit import CreatedTrack, fitting_params

EPHEMERAL_SETTINGS = ("uuid", "creation_date", "version", "provided_name", "store")
TEST_MODE_DOCS = 1000
SCROLL_KEEP_ALIVE = "5m"

_TRACK = """{% import "rally.helpers" as rally with context %}
{
  "version": 2,
  "description": DESCRIPTION,
  "indices": INDICES,
  "corpora": CORPORA,
  "operations": [
    {{ rally.collect(parts="operations/*.json") }}
  ],
  "challenges": [
    {{ rally.collect(parts="challenges/*.json") }}
  ]
}
"""

_CHALLENGE = """{
  "name": "my-challenge",
  "description": "Re-create the indices and bulk-index their documents",
  "default": true,
  "schedule": [
    {"operation": "delete-index"},
    {"operation": {"operation-type": "create-index"}},
    {
      "operation": {
        "operation-type": "cluster-health",
        "index": INDEX_NAMES,
        "request-params": {
          "wait_for_status": "{{ cluster_health | default('green') }}",
          "wait_for_no_relocating_shards": "true"
        },
        "retry-until-success": true
      }
    },
    {
      "operation": {
        "operation-type": "bulk",
        "bulk-size": {{ bulk_size | default(5000) }},
        "ingest-percentage": {{ ingest_percentage | default(100) }}
      },
      "clients": {{ bulk_indexing_clients | default(8) }}
    }
  ]
}
"""

_OPERATION = """{
  "name": "default",
  "operation-type": "search",
  "body": {"query": {"match_all": {}}}
}
"""


@dataclass(frozen=True)
class CreatedCorpus:
    """One index's documents as written: ``documents`` is the file name, sizes in bytes."""

    index: str
    documents: str
    document_count: int
    uncompressed_bytes: int
    compressed_bytes: int


def clean_settings(index_settings: Mapping[str, object]) -> dict[str, object]:
    """Rally's cleaning of ``settings.index`` from ``GET /<index>`` (module doc)."""
    cleaned = {k: v for k, v in index_settings.items() if k not in EPHEMERAL_SETTINGS}
    for key in ("number_of_shards", "number_of_replicas"):
        if key in cleaned:
            cleaned[key] = f"{{{{{key} | default({cleaned[key]})}}}}"
    return cleaned


class _Cluster:
    def __init__(self, hosts: Sequence[str], options: ClientOptions) -> None:
        self.es = create_client(ConnectionSettings.create(list(hosts), options))

    async def call(self, method: str, target: str, body: object = None) -> Any:
        payload = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"} if payload else None
        response = await self.es.http.request(method, target, body=payload, headers=headers)
        if response.status >= 400:
            raise UserError(
                f"create-track: {method} {target.split('?')[0]} answered HTTP {response.status}: "
                f"{response.body[:300].decode(errors='replace')}. Check --indices/--data-streams."
            )
        return json.loads(response.body)


async def _indices(
    cluster: _Cluster,
    indices: Sequence[str],
    data_streams: Sequence[str],
    raw: dict[str, Mapping[str, object]],
) -> dict[str, object]:
    """Each matching index's track body (cleaned); ``raw`` gets its settings as the cluster has them."""
    names = list(indices)
    for pattern in data_streams:
        found = await cluster.call("GET", f"/_data_stream/{quote(pattern, safe=',*')}?expand_wildcards=all")
        names += [d["name"] for d in found.get("data_streams", ())]
    result: dict[str, object] = {}
    for pattern in names:
        details = await cluster.call("GET", f"/{quote(pattern, safe=',*')}?expand_wildcards=all")
        for index, body in details.items():
            if pattern in ("_all", "*") and index.startswith("."):
                continue  # Rally: hidden (possibly system) indices only when named
            raw[index] = body.get("settings", {}).get("index", {})
            result[index] = {
                "mappings": body.get("mappings", {}),
                "settings": {"index": clean_settings(raw[index])},
            }
    return result


async def _dump(cluster: _Cluster, index: str, out: Path, limit: int | None, batch: int) -> int:
    written = 0
    compressor = bz2.BZ2Compressor()
    with open(out, "wb") as plain, open(out.with_name(out.name + ".bz2"), "wb") as packed:
        page = await cluster.call(
            "POST", f"/{quote(index)}/_search?scroll={SCROLL_KEEP_ALIVE}", {"size": batch, "sort": ["_doc"]}
        )
        try:
            while page["hits"]["hits"] and (limit is None or written < limit):
                for hit in page["hits"]["hits"]:
                    if limit is not None and written >= limit:
                        break
                    line = (
                        json.dumps(hit["_source"], separators=(",", ":"), ensure_ascii=False) + "\n"
                    ).encode()
                    plain.write(line)
                    packed.write(compressor.compress(line))
                    written += 1
                page = await cluster.call(
                    "POST", "/_search/scroll", {"scroll": SCROLL_KEEP_ALIVE, "scroll_id": page["_scroll_id"]}
                )
        finally:
            await cluster.call("DELETE", "/_search/scroll", {"scroll_id": page["_scroll_id"]})
        packed.write(compressor.flush())
    return written


def create_track(
    *,
    name: str,
    hosts: Sequence[str],
    output: Path,
    indices: Sequence[str] = (),
    data_streams: Sequence[str] = (),
    client_options: ClientOptions | None = None,
    batch_size: int = 1000,
    progress: Callable[[str], None] = lambda _: None,
) -> CreatedTrack:
    """Write the track ``name`` into ``output/name``; the result says where, and which track params
    fit the source cluster (:func:`esbench.tracker.fit.fitting_params`).

    Raises:
        UserError: no index matched, the directory exists and is not empty, or the cluster refused.
        ConnectionFailed: the cluster is unreachable.
    """
    if not indices and not data_streams:
        raise UserError("create-track needs --indices or --data-streams (comma-separated names or patterns).")
    root = output / name
    if root.exists() and any(root.iterdir()):
        raise UserError(f"'{root}' exists and is not empty. Choose another --output-path or --track name.")

    async def run() -> CreatedTrack:
        cluster = _Cluster(hosts, client_options or ClientOptions())
        try:
            raw: dict[str, Mapping[str, object]] = {}
            found = await _indices(cluster, indices, data_streams, raw)
            if not found:
                raise UserError(f"No index matches --indices={','.join(indices)} / --data-streams.")
            for directory in (root, root / "operations", root / "challenges"):
                directory.mkdir(parents=True, exist_ok=True)
            corpora = []
            for index, body in sorted(found.items()):
                (root / f"{index}.json").write_text(json.dumps(body, indent=4, sort_keys=True) + "\n")
                progress(f"Extracting documents of [{index}]")
                count = await _dump(
                    cluster, index, root / f"{index}-documents-1k.json", TEST_MODE_DOCS, batch_size
                )
                if count:
                    docs = root / f"{index}-documents.json"
                    count = await _dump(cluster, index, docs, None, batch_size)
                    corpora.append(
                        CreatedCorpus(
                            index=index,
                            documents=docs.name + ".bz2",
                            document_count=count,
                            uncompressed_bytes=docs.stat().st_size,
                            compressed_bytes=(root / (docs.name + ".bz2")).stat().st_size,
                        )
                    )
                else:
                    for leftover in root.glob(f"{index}-documents-1k.json*"):
                        leftover.unlink()
            _write_track(root, name, sorted(found), corpora)
            params, reason = fitting_params(await cluster.call("GET", "/_cluster/health"), raw)
            return CreatedTrack(root=root, indices=tuple(sorted(found)), track_params=params, reason=reason)
        except elastic_transport.TransportError as e:
            raise ConnectionFailed(
                f"create-track could not talk to {', '.join(hosts)}: {type(e).__name__}: {e}. "
                "Check --target-hosts and --client-options (a host that does not answer is given up "
                f"after the client timeout, {timeout_text((client_options or ClientOptions()).timeout)})."
            ) from e
        finally:
            await cluster.es.close()

    return asyncio.run(run())


def _write_track(root: Path, name: str, indices: list[str], corpora: list[CreatedCorpus]) -> None:
    index_entries = [{"name": i, "body": f"{i}.json"} for i in indices]
    corpus_entries = [
        {
            "name": c.index,
            "documents": [
                {
                    "target-index": c.index,
                    "source-file": c.documents,
                    "document-count": c.document_count,
                    "compressed-bytes": c.compressed_bytes,
                    "uncompressed-bytes": c.uncompressed_bytes,
                }
            ],
        }
        for c in corpora
    ]
    track = (
        _TRACK.replace("DESCRIPTION", json.dumps(f"Tracker-generated track for {name}"))
        .replace("INDICES", json.dumps(index_entries, indent=2))
        .replace("CORPORA", json.dumps(corpus_entries, indent=2))
    )
    (root / "track.json").write_text(track)
    (root / "challenges" / "default.json").write_text(
        _CHALLENGE.replace("INDEX_NAMES", json.dumps(",".join(indices)))
    )
    (root / "operations" / "default.json").write_text(_OPERATION)
