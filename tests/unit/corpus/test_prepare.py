"""prepare_corpora: where files are found, decompression into the cache, downloads, counts, generation."""

from __future__ import annotations

import bz2
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from corpus_helpers import corpus, make_track, write_docs
from loopback_http import directory_handler, serving

from esbench.corpus import BulkSource, prepare_corpora, register_generator
from esbench.corpus.cache import corpora_home, corpus_dir
from esbench.corpus.offsets import read_offset_index
from esbench.exceptions import DataError, DownloadError, NotFound, TrackValidationError
from esbench.track.model import Documents


def _docs(source_file: str, count: int, **kwargs: Any) -> Documents:
    return Documents(source_file=source_file, document_count=count, target_index="idx", **kwargs)


def test_uncompressed_file_in_the_track_directory_is_used_in_place(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "docs.json", 40)
    track = make_track(tmp_path, corpus("c", _docs("docs.json", 40)))
    prepared = prepare_corpora(track).files("c")[0]
    assert prepared.path == path
    assert prepared.offsets_path.is_relative_to(corpora_home() / "_local")
    assert read_offset_index(prepared.offsets_path).line_count == 40  # type: ignore[union-attr]
    assert prepared.document_count == 40 and prepared.target_index == "idx"


def test_archive_is_decompressed_once_into_the_cache(tmp_path: Path) -> None:
    original = write_docs(tmp_path / "src.json", 50).read_bytes()
    (tmp_path / "docs.json.bz2").write_bytes(bz2.compress(original))
    track = make_track(tmp_path, corpus("c", _docs("docs.json.bz2", 50)))
    messages: list[str] = []
    first = prepare_corpora(track, progress=messages.append).files("c")[0]
    assert first.path.read_bytes() == original
    assert first.path.is_relative_to(corpora_home() / "_local")
    assert any("Decompressing" in m for m in messages)
    inode = first.path.stat().st_ino
    messages.clear()
    second = prepare_corpora(track, progress=messages.append).files("c")[0]
    assert second.path == first.path and second.path.stat().st_ino == inode
    assert not any("Decompressing" in m for m in messages)


def test_same_file_name_in_two_tracks_does_not_collide(tmp_path: Path) -> None:
    for name, count in (("t1", 10), ("t2", 20)):
        write_docs(tmp_path / name / "src.json", count)
        (tmp_path / name / "docs.json.bz2").write_bytes(
            bz2.compress((tmp_path / name / "src.json").read_bytes())
        )
    p1 = prepare_corpora(make_track(tmp_path / "t1", corpus("c", _docs("docs.json.bz2", 10)))).all()[0]
    p2 = prepare_corpora(make_track(tmp_path / "t2", corpus("c", _docs("docs.json.bz2", 20)))).all()[0]
    assert p1.path != p2.path
    assert p1.path.read_bytes() == (tmp_path / "t1" / "src.json").read_bytes()


def test_changed_archive_is_decompressed_again(tmp_path: Path) -> None:
    write_docs(tmp_path / "src.json", 10)
    archive = tmp_path / "docs.json.bz2"
    archive.write_bytes(bz2.compress((tmp_path / "src.json").read_bytes()))
    track = make_track(tmp_path, corpus("c", _docs("docs.json.bz2", 10)))
    prepare_corpora(track)
    archive.write_bytes(bz2.compress(write_docs(tmp_path / "src.json", 10, corpus="new").read_bytes()))
    path = prepare_corpora(track).all()[0].path
    assert b'"corpus":"new"' in path.read_bytes()


def test_document_count_mismatch_is_a_data_error(tmp_path: Path) -> None:
    write_docs(tmp_path / "docs.json", 40)
    track = make_track(tmp_path, corpus("c", _docs("docs.json", 41)))
    with pytest.raises(DataError, match=r"expected 41 lines .* but the file has 40"):
        prepare_corpora(track)


def test_action_and_meta_data_files_have_two_lines_per_document(tmp_path: Path) -> None:
    write_docs(tmp_path / "docs.json", 30, action_lines=True)
    ok = make_track(
        tmp_path,
        corpus(
            "c", Documents(source_file="docs.json", document_count=30, includes_action_and_meta_data=True)
        ),
    )
    assert prepare_corpora(ok).all()[0].includes_action_and_meta_data
    bad = make_track(
        tmp_path,
        corpus(
            "c", Documents(source_file="docs.json", document_count=60, includes_action_and_meta_data=True)
        ),
    )
    with pytest.raises(DataError, match="two lines per document"):
        prepare_corpora(bad)


def test_missing_file_without_base_url_says_where_to_put_it(tmp_path: Path) -> None:
    track = make_track(tmp_path, corpus("c", _docs("docs.json.bz2", 10)))
    with pytest.raises(DataError) as err:
        prepare_corpora(track)
    message = str(err.value)
    assert "no base-url" in message and str(corpus_dir("c")) in message and str(tmp_path) in message


def test_wrong_size_without_base_url_is_reported(tmp_path: Path) -> None:
    write_docs(tmp_path / "docs.json", 10)
    track = make_track(tmp_path, corpus("c", _docs("docs.json", 10, uncompressed_bytes=5)))
    with pytest.raises(DataError, match="does not have the expected size of 5 bytes"):
        prepare_corpora(track)


def test_offline_download_is_a_download_error_with_the_url(tmp_path: Path) -> None:
    track = make_track(tmp_path, corpus("c", _docs("docs.json.bz2", 10, base_url="http://127.0.0.1:9/data")))
    with pytest.raises(DownloadError) as err:
        prepare_corpora(track, offline=True)
    assert "http://127.0.0.1:9/data/docs.json.bz2" in str(err.value)
    assert "offline" in str(err.value) and str(corpus_dir("c")) in str(err.value)


@pytest.fixture
def http_dir(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A loopback HTTP server serving a directory."""
    root = tmp_path / "served"
    root.mkdir()
    with serving(directory_handler(root)) as host:
        yield f"http://{host}/corpora", root


def test_download_then_decompress_then_reuse(tmp_path: Path, http_dir: tuple[str, Path]) -> None:
    base_url, root = http_dir
    original = write_docs(tmp_path / "src.json", 25).read_bytes()
    compressed = bz2.compress(original)
    (root / "corpora").mkdir()
    (root / "corpora" / "docs.json.bz2").write_bytes(compressed)
    docs = _docs(
        "docs.json.bz2",
        25,
        base_url=base_url,
        compressed_bytes=len(compressed),
        uncompressed_bytes=len(original),
    )
    track = make_track(tmp_path / "track", corpus("c", docs))
    prepared = prepare_corpora(track).all()[0]
    assert prepared.path == corpus_dir("c") / "docs.json"
    assert prepared.path.read_bytes() == original
    (root / "corpora" / "docs.json.bz2").unlink()  # a second run must not download again
    assert prepare_corpora(track).all()[0].path == prepared.path


def test_download_errors_name_the_url(tmp_path: Path, http_dir: tuple[str, Path]) -> None:
    base_url, root = http_dir
    (root / "corpora").mkdir()
    (root / "corpora" / "docs.json").write_bytes(write_docs(tmp_path / "s.json", 3).read_bytes())
    missing = make_track(tmp_path / "t", corpus("c", _docs("nothere.json", 3, base_url=base_url)))
    with pytest.raises(DownloadError, match=r"nothere.json.*HTTP status: 404"):
        prepare_corpora(missing)
    wrong = make_track(
        tmp_path / "t", corpus("d", _docs("docs.json", 3, base_url=base_url, uncompressed_bytes=7))
    )
    with pytest.raises(DownloadError, match=r"downloaded .* bytes but 7 bytes are expected"):
        prepare_corpora(wrong)
    assert not (corpus_dir("d") / "docs.json").exists()


def test_corpus_names_filter_and_unknown_names(tmp_path: Path) -> None:
    write_docs(tmp_path / "a.json", 3)
    track = make_track(tmp_path, corpus("a", _docs("a.json", 3)), corpus("b", _docs("nothere.json", 3)))
    assert prepare_corpora(track, corpus_names=["a"]).names() == ("a",)
    with pytest.raises(NotFound, match="no corpus 'zzz'"):
        prepare_corpora(track, corpus_names=["zzz"])
    with pytest.raises(NotFound, match="Prepared corpora: a"):
        prepare_corpora(track, corpus_names=["a"]).files("b")


# --- generated corpora ------------------------------------------------------------------------


class CountingGenerator:
    """A tiny deterministic generator: document i is {"n": i, "seed": seed}."""

    name: ClassVar[str] = "test-counting"
    version: ClassVar[str] = "1"
    chunk_size: ClassVar[int] = 10

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        if "bad" in params:
            raise TrackValidationError("bad param")
        return {"seed": int(params.get("seed", 1))}

    def render_chunk(self, params: Mapping[str, Any], chunk_index: int, count: int) -> bytes:
        start = chunk_index * self.chunk_size
        return b"".join(b'{"n": %d, "seed": %d}\n' % (start + i, params["seed"]) for i in range(count))


def _generated_track(tmp_path: Path, source_file: str, count: int, **params: Any) -> Any:
    meta = {"generator": "test-counting", "generator-params": params}
    return make_track(tmp_path, corpus("gen", _docs(source_file, count, meta=meta)))


def test_generated_corpus_is_made_once_with_its_test_variant(tmp_path: Path) -> None:
    register_generator(CountingGenerator())
    track = _generated_track(tmp_path, "gen.json.zst", 35, seed=4)
    messages: list[str] = []
    prepared = prepare_corpora(track, progress=messages.append).all()[0]
    assert any(m.startswith("Generating 35 documents") for m in messages)
    lines = prepared.path.read_bytes().splitlines()
    assert [json.loads(line)["n"] for line in lines] == list(range(35))
    folder = prepared.path.parent
    assert {p.name for p in folder.iterdir()} >= {
        "gen.json", "gen.json.offset", "gen.json.zst", "gen.meta.json",
        "gen-1k.json", "gen-1k.json.offset", "gen-1k.json.zst", "gen-1k.meta.json", "params.json",
    }  # fmt: skip
    meta = json.loads((folder / "gen.meta.json").read_text())
    assert meta["document_count"] == 35 and meta["uncompressed_bytes"] == prepared.path.stat().st_size
    assert meta["compressed_bytes"] == (folder / "gen.json.zst").stat().st_size
    messages.clear()
    inode = prepared.path.stat().st_ino
    assert prepare_corpora(track, progress=messages.append).all()[0].path == prepared.path
    assert messages == [] and prepared.path.stat().st_ino == inode  # the second preparation reuses the cache
    # Test mode asks for the -1k file: it is there already.
    meta_1k = {"generator": "test-counting", "generator-params": {"seed": 4}}
    test_mode = make_track(tmp_path, corpus("gen", _docs("gen-1k.json.zst", 35, meta=meta_1k)))
    assert prepare_corpora(test_mode, progress=messages.append).all()[0].path == folder / "gen-1k.json"
    assert messages == []


def test_generated_test_variant_alone_is_the_prefix(tmp_path: Path) -> None:
    register_generator(CountingGenerator())
    small = prepare_corpora(_generated_track(tmp_path, "g-1k.json", 1000, seed=2)).all()[0]
    assert not (small.path.parent / "g-1k-1k.json").exists()
    full = prepare_corpora(_generated_track(tmp_path / "other", "g.json", 2500, seed=2)).all()[0]
    assert full.path.read_bytes().startswith(small.path.read_bytes())
    bodies = list(BulkSource([full], client_index=1, num_clients=2, bulk_size=1000))
    assert [n for _, n in bodies] == [1000, 250]


def test_parallel_generation_equals_serial(tmp_path: Path) -> None:
    from esbench.corpus.generate import generate_file

    gen = CountingGenerator()
    a = generate_file(gen, {"seed": 9}, path=tmp_path / "a" / "x.json", document_count=95, workers=1)
    b = generate_file(gen, {"seed": 9}, path=tmp_path / "b" / "x.json", document_count=95, workers=2)
    assert a.path.read_bytes() == b.path.read_bytes()
    assert (tmp_path / "a" / "x.json.zst").read_bytes() == (tmp_path / "b" / "x.json.zst").read_bytes()


def test_unknown_generator_and_bad_params_are_track_errors(tmp_path: Path) -> None:
    unknown = make_track(tmp_path, corpus("g", _docs("g.json", 5, meta={"generator": "nope"})))
    with pytest.raises(TrackValidationError, match=r"Unknown corpus generator 'nope'.*eventdata"):
        prepare_corpora(unknown)
    register_generator(CountingGenerator())
    with pytest.raises(TrackValidationError, match="bad param"):
        prepare_corpora(_generated_track(tmp_path, "g.json", 5, bad=1))


def test_a_file_in_the_track_directory_wins_over_the_generator(tmp_path: Path) -> None:
    register_generator(CountingGenerator())
    path = write_docs(tmp_path / "gen.json", 12)
    assert prepare_corpora(_generated_track(tmp_path, "gen.json", 12)).all()[0].path == path


def test_eventdata_test_mode_corpus_is_generated_without_the_full_one(tmp_path: Path) -> None:
    meta = {"generator": "eventdata", "generator-params": {"doc_count": 20_000_000, "seed": 1}}
    track = make_track(tmp_path, corpus("eventdata", _docs("eventdata-1k.json.zst", 1000, meta=meta)))
    prepared = prepare_corpora(track).all()[0]
    assert prepared.path.name == "eventdata-1k.json"
    assert prepared.path.read_bytes().count(b"\n") == 1000
    assert not (prepared.path.parent / "eventdata.json").exists()


def test_corpora_downloaded_by_rally_are_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(home))
    rally_dir = home / ".rally" / "benchmarks" / "data" / "c"
    original = write_docs(tmp_path / "src.json", 15).read_bytes()
    rally_dir.mkdir(parents=True)
    (rally_dir / "docs.json.bz2").write_bytes(bz2.compress(original))
    track = make_track(
        tmp_path / "track", corpus("c", _docs("docs.json.bz2", 15, base_url="http://127.0.0.1:9/x"))
    )
    prepared = prepare_corpora(track, offline=True).all()[0]
    assert prepared.path.read_bytes() == original
    assert prepared.path.is_relative_to(corpora_home() / "_local")  # Rally's directory is only read
    assert sorted(p.name for p in rally_dir.iterdir()) == ["docs.json.bz2"]
