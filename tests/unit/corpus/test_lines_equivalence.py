"""The C twin of the newline primitives (``_lines.c``) answers exactly as the Python ones do.

``esbench.corpus.lines.py_nth_newline``, ``py_prefix_lines`` and ``py_prefix_group`` are the
specification. Both twins
get the same seeded buffers with every edge (empty buffer, empty lines, no final newline, ranges
past the end, before the start, negative offsets) and must return the same values or raise the
same error. ``prefix_lines`` is also checked against the plainest statement of a bulk body:
``prefix + line + "\\n"`` joined over the lines, which is how esbench built bodies before.
A BulkSource in a pure-Python subprocess yields the same bodies as the compiled one.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from harness import core_env

from esbench.corpus import lines

C = lines._C
pytestmark = pytest.mark.skipif(C is None, reason="the _lines C extension is not built here")


def _buffers() -> list[bytes | bytearray]:
    rng = random.Random(20261125)
    out = [b"", b"\n", b"\n\n\n", b"x", b"abc", b"abc\n", b"a\nb", b"\na\n\nb\n\n"]
    for _ in range(150):
        parts = [
            bytes(rng.choice(b'ab{}":, ') for _ in range(rng.randrange(0, 12)))
            for _ in range(rng.randrange(0, 9))
        ]
        buf = b"\n".join(parts)
        if rng.random() < 0.5:
            buf += b"\n"
        out.append(buf)
    # The bulk path hands over its reused read buffer, a bytearray.
    return out + [bytearray(b) for b in out[::3]]


def _same(f_py, f_c, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
    try:
        expected = f_py(*args, **kwargs)
    except ValueError as e:
        with pytest.raises(ValueError) as got:
            f_c(*args, **kwargs)
        assert str(got.value) == str(e)
        return
    assert f_c(*args, **kwargs) == expected, (args, kwargs)


def test_nth_newline_twins_agree_on_every_start_count_and_end() -> None:
    checked = 0
    for buf in _buffers():
        size = len(buf)
        for start in (-1, *range(0, size + 3)):
            for n in (-1, 0, 1, 2, 3, buf.count(b"\n"), buf.count(b"\n") + 1):
                _same(lines.py_nth_newline, C.nth_newline, buf, start, n)
                for end in (-2, 0, start, size // 2, size, size + 5):
                    _same(lines.py_nth_newline, C.nth_newline, buf, start, n, end)
                    _same(lines.py_nth_newline, C.nth_newline, buf, start, n, end=end)
                    checked += 1
    assert checked > 10_000


def _joined(buf: bytes | bytearray, start: int, end: int, prefix: bytes) -> bytes:
    """A bulk body as the lines of the range, each as prefix + line + newline."""
    chunk = buf[start:end]
    if not chunk:
        return b""
    parts = chunk.split(b"\n")
    if chunk.endswith(b"\n"):
        parts.pop()
    return b"".join(prefix + bytes(part) + b"\n" for part in parts)


@pytest.mark.parametrize("prefix", [b"", b"P", b'{"index": {"_index": "logs"}}\n'])
def test_prefix_lines_twins_agree_and_equal_the_joined_lines(prefix: bytes) -> None:
    for buf in _buffers():
        size = len(buf)
        starts = [0] + [i + 1 for i, c in enumerate(buf) if c == 0x0A]  # line starts, as callers give
        for start in (*starts, size + 1):
            for end in (*starts[1:], size, size + 7, start, 0):
                _same(lines.py_prefix_lines, C.prefix_lines, buf, start, end, prefix)
                assert C.prefix_lines(buf, start, end, prefix) == _joined(buf, start, min(end, size), prefix)
        _same(lines.py_prefix_lines, C.prefix_lines, buf, -1, size, prefix)
        _same(lines.py_prefix_lines, C.prefix_lines, buf, 0, -3, prefix)


@pytest.mark.parametrize("prefix", [b"", b'{"create": {"_index": "logs"}}\n'])
def test_prefix_group_twins_agree_and_equal_the_two_steps(prefix: bytes) -> None:
    for buf in _buffers():
        size = len(buf)
        newlines = buf.count(b"\n")
        for start in (-1, *range(0, size + 2)):
            for n in (-1, 0, 1, 2, newlines, newlines + 1):
                for end in (None, -1, 0, size // 2, size, size + 3):
                    _same(lines.py_prefix_group, C.prefix_group, buf, start, n, prefix, end)
                    if start < 0 or (end is not None and end < 0) or n <= 0:
                        continue
                    idx, missing = C.nth_newline(buf, start, n, end)
                    expected = (C.prefix_lines(buf, start, idx + 1, prefix), idx + 1, 0)
                    assert C.prefix_group(buf, start, n, prefix, end) == (
                        expected if idx >= 0 else (None, -1, missing)
                    )


def test_prefix_lines_in_c_refuses_what_is_not_bytes() -> None:
    with pytest.raises(TypeError, match="bytes for prefix"):
        C.prefix_lines(b"a\n", 0, 2, bytearray(b"P"))
    with pytest.raises(TypeError):
        C.prefix_lines("a\n", 0, 2, b"P")
    with pytest.raises(TypeError, match="4 positional"):
        C.prefix_lines(b"a\n", 0, 2)


_BODIES = textwrap.dedent(
    """
    import hashlib, sys
    from pathlib import Path
    from esbench.corpus import lines
    from esbench.corpus.bulk import BulkSource
    sys.path.insert(0, sys.argv[2])
    from corpus_helpers import prepared, write_docs
    docs = int(sys.argv[3])
    digest = hashlib.sha256()
    bodies = 0
    for newline_at_end in (True, False):
        name = f"docs-{newline_at_end}.json"
        f = prepared(write_docs(Path(sys.argv[1]) / name, docs, newline_at_end=newline_at_end), docs)
        for clients in (1, 3):
            for bulk_size in (1, 7, 1000):
                for i in range(clients):
                    source = BulkSource([f], client_index=i, num_clients=clients, bulk_size=bulk_size)
                    for body, count in source:
                        digest.update(body); digest.update(str(count).encode()); bodies += 1
    print(lines.COMPILED, bodies, digest.hexdigest())
    """
)


def test_bulk_bodies_are_byte_identical_with_and_without_the_c_twin(tmp_path: Path) -> None:
    helpers = Path(__file__).parent

    def run(pure: str, where: Path) -> list[str]:
        where.mkdir()
        env = core_env(pure)
        out = subprocess.run(
            [sys.executable, "-c", _BODIES, str(where), str(helpers), "2345"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.split()

    compiled, pure = run("0", tmp_path / "c"), run("1", tmp_path / "py")
    assert compiled[0] == "True" and pure[0] == "False"
    assert int(compiled[1]) > 2 * 2345 * 2
    assert compiled[1:] == pure[1:]
    assert hashlib.sha256(b"").hexdigest() != compiled[2]
