"""A track whose corpus is downloaded from a loopback HTTP server is prefetched, bundled, and raced from the
bundle in a second esbench home with --offline after the server is gone."""

from __future__ import annotations

import bz2
import json
import os
import shutil
import tarfile
import uuid
from pathlib import Path

from harness import TRACKS, esbench
from loopback_http import directory_handler, serving

from esbench.results.store import ResultsStore

TINY = TRACKS / "compare-tiny"


def make_download_track(base: Path, url: str, index: str) -> Path:
    """compare-tiny, but its corpus (2,000 documents, bz2, with the -1k test-mode file) is only on the
    HTTP server."""
    served = base / "served"
    served.mkdir()
    data = (TINY / "documents.json").read_bytes()  # 1,000 documents
    (served / "documents.json.bz2").write_bytes(bz2.compress(data * 2))
    (served / "documents-1k.json.bz2").write_bytes(bz2.compress(data))
    track = base / "track"
    track.mkdir()
    shutil.copy(TINY / "index.json", track / "index.json")
    spec = json.loads((TINY / "track.json").read_text().split("\n", 1)[1].replace("{{ idx }}", index)
                      .replace("{{ search_time_period | default(4) }}", "1")
                      .replace("{{ search_target_throughput | default(40) }}", "40"))  # fmt: skip
    spec["corpora"][0]["base-url"] = url
    doc = spec["corpora"][0]["documents"][0]
    doc["source-file"] = "documents.json.bz2"
    doc["compressed-bytes"] = (served / "documents.json.bz2").stat().st_size
    doc["document-count"], doc["uncompressed-bytes"] = 2000, 2 * len(data)
    (track / "track.json").write_text(json.dumps(spec))
    return track


def test_prefetch_bundle_and_offline_race_from_the_bundle(es_hosts, tmp_path) -> None:
    index = f"esbench-it-bundle-{uuid.uuid4().hex[:8]}"
    with serving(directory_handler(tmp_path / "served")) as host:
        track = make_download_track(tmp_path, f"http://{host}", index)
        home_a, home_b = tmp_path / "home-a", tmp_path / "home-b"

        fetched = esbench("download", f"--track-path={track}", "--test-mode", home=home_a)
        assert fetched.returncode == 0, fetched.stderr
        assert fetched.stdout.split("\t")[:2] == ["compare-tiny", "1000"]
        bundle = tmp_path / "tiny.tar"
        made = esbench("bundle", f"--track-path={track}", f"--output={bundle}", "--quiet", home=home_a)
        assert made.returncode == 0, made.stderr

    with tarfile.open(bundle) as tar:
        names = set(tar.getnames())
    assert {"esbench-bundle.json", "track/track.json", "track/index.json"} <= names
    assert {"track/documents.json.bz2", "track/documents-1k.json.bz2"} <= names

    # The server is gone and home B has never seen the track: everything comes from the bundle.
    raced = esbench(
        "race", f"--track-bundle={bundle}", "--offline", "--test-mode",
        f"--target-hosts={','.join(es_hosts)}", "--user-tag=bundle:it", home=home_b,
    )  # fmt: skip
    assert raced.returncode == 0, raced.stderr
    os.environ["ESBENCH_HOME"], previous = str(home_b), os.environ["ESBENCH_HOME"]
    try:
        (race,) = ResultsStore.open().find(user_tags={"bundle": "it"})
    finally:
        os.environ["ESBENCH_HOME"] = previous
    assert race.task("index-append").total_weight == 1000 and race.task("index-append").error_count == 0

    # A damaged copy is refused with a clear message.
    damaged = tmp_path / "damaged.tar"
    with tarfile.open(bundle) as src, tarfile.open(damaged, "w") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read() if member.isfile() else None
            if member.name == "track/index.json":
                data = data.replace(b"{", b"{ ", 1)
                member.size = len(data)
            dst.addfile(member, None if data is None else __import__("io").BytesIO(data))
    refused = esbench(
        "race", f"--track-bundle={damaged}", "--offline", f"--target-hosts={','.join(es_hosts)}",
        home=tmp_path / "home-c",
    )  # fmt: skip
    assert refused.returncode == 64 and "is damaged: 'track/index.json'" in refused.stderr
    assert "Traceback" not in refused.stderr
    import urllib.request

    urllib.request.urlopen(urllib.request.Request(f"http://{es_hosts[0]}/{index}", method="DELETE")).read()
