"""Textual pre-inclusion of ``{{ rally.collect(parts="GLOB") }}`` before a track is rendered.

Rally (``esrally/track/loader.py``, ``TemplateSource``) does not render ``rally.collect`` as a
macro when it is written as ``{{ rally.collect(parts="...") }}`` (at least one space inside the
braces, double-quoted glob): it replaces the expression with the *text* of the files the glob
matches, sorted, joined with ``",\\n"``, recursively (a part may collect further parts, relative to
the directory of its glob). Only then is the whole text rendered as one template, which is why a
``{% set %}`` in one part is visible in the parts after it.

Besides the text, :func:`assemble` keeps, for every line of the assembled source, the file and line
it came from, so that Jinja errors can name the part file and line.
"""

from __future__ import annotations

import functools
import glob as globlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from esbench.exceptions import TrackSyntaxError


@functools.cache
def collect_pattern(namespace: str) -> re.Pattern[str]:
    """The textual form Rally (``rally.collect``) and OSB (``benchmark.collect``, ``namespace`` =
    ``"benchmark"``) recognise: one or more spaces after ``{{`` and before ``}}``, a double-quoted glob."""
    return re.compile(r"{{ +?" + re.escape(namespace) + r'\.collect\(parts="(.+?(?="))"\) +?}}')


#: Rally's form (:func:`collect_pattern` of ``rally``).
COLLECT_RE = collect_pattern("rally")
_JOIN = ",\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class AssembledSource:
    """A template source after ``rally.collect`` pre-inclusion.

    Attributes:
        text: the assembled template text.
        origins: for line ``i`` (0-based) of ``text``, the ``(file, 1-based line)`` it came from,
            or None for the joining ``",\\n"`` lines.
        files: every file that contributed, the main file first.
    """

    text: str
    origins: tuple[tuple[Path, int] | None, ...]
    files: tuple[Path, ...]

    def origin(self, lineno: int) -> tuple[Path, int] | None:
        """The ``(file, line)`` of 1-based line ``lineno`` of the assembled text, if known."""
        if 1 <= lineno <= len(self.origins):
            return self.origins[lineno - 1]
        return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise TrackSyntaxError(
            f"Cannot read track file '{path}': {e.strerror}. Check that it exists.", e
        ) from e
    except UnicodeDecodeError as e:
        raise TrackSyntaxError(
            f"Track file '{path}' is not valid UTF-8 ({e.reason} at byte {e.start}). Save it as UTF-8.", e
        ) from e


def _segments(
    text: str, file: Path | None, base_dir: str, files: list[Path], pattern_re: re.Pattern[str]
) -> list[tuple[str, Path | None, int]]:
    """Split ``text`` into ``(piece, file, first line of piece in file)`` with collects expanded."""
    out: list[tuple[str, Path | None, int]] = []
    pos = 0
    line = 1
    for match in pattern_re.finditer(text):
        before = text[pos : match.start()]
        out.append((before, file, line))
        line += before.count("\n") + match.group(0).count("\n")
        pattern = os.path.join(base_dir, match.group(1))
        # Nested parts resolve relative to the directory of the glob, like Rally.
        sub_base = os.path.dirname(pattern)
        for i, name in enumerate(sorted(globlib.glob(pattern))):
            if i > 0:
                out.append((_JOIN, None, 0))
            part = Path(name)
            files.append(part)
            out.extend(_segments(_read(part), part, sub_base, files, pattern_re))
        pos = match.end()
    out.append((text[pos:], file, line))
    return out


def assemble(text: str, *, file: Path | None, base_dir: Path, namespace: str = "rally") -> AssembledSource:
    """Expand every textual ``rally.collect`` (``benchmark.collect`` with ``namespace="benchmark"``,
    OpenSearch Benchmark's spelling) in ``text`` (read from ``file``) relative to ``base_dir``.

    Raises:
        TrackSyntaxError: a collected part cannot be read or is not UTF-8.
    """
    files: list[Path] = [file] if file is not None else []
    segments = _segments(text, file, str(base_dir), files, collect_pattern(namespace))
    pieces: list[str] = []
    origins: list[tuple[Path, int] | None] = [None]
    # Whether the current assembled line already has an origin from non-blank text.
    solid = False
    for piece, src, first_line in segments:
        if not piece:
            continue
        pieces.append(piece)
        for i, chunk in enumerate(piece.split("\n")):
            if i > 0:
                origins.append(None)
                solid = False
            origin = (src, first_line + i) if src is not None else None
            if origins[-1] is None or (not solid and chunk.strip()):
                origins[-1] = origin
            if chunk.strip() and origin is not None:
                solid = True
    return AssembledSource(text="".join(pieces), origins=tuple(origins), files=tuple(files))


def assemble_file(path: Path, *, base_dir: Path | None = None, namespace: str = "rally") -> AssembledSource:
    """Read ``path`` and expand its collects (see :func:`assemble`) relative to ``base_dir``
    (default: ``path``'s directory)."""
    return assemble(
        _read(path),
        file=path,
        base_dir=base_dir if base_dir is not None else path.parent,
        namespace=namespace,
    )
