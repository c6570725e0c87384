"""Parsing a rendered track as JSON, with errors that say where: the part file and line the error
comes from when it can be told (:mod:`esbench.track.sourcemap`), else a guess from the text of the
offending line, and the lines around it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import jinja2

from esbench.exceptions import TrackSyntaxError
from esbench.track.assemble import AssembledSource
from esbench.track.sourcemap import rendered_origin


def _json_error_context(text: str, lineno: int, colno: int) -> str:
    lines = text.split("\n")
    start = max(0, lineno - 4)
    end = min(len(lines), lineno + 3)
    width = len(str(end))
    out = []
    for i in range(start, end):
        out.append(f"{i + 1:>{width}} | {lines[i]}")
        if i + 1 == lineno:
            out.append(" " * width + " | " + " " * (colno - 1) + "^")
    return "\n".join(out)


def _source_guess(line: str, files: tuple[Path, ...]) -> str:
    # Rendering moves lines around, so find where the offending text is written in the sources.
    needle = line.strip()
    if len(needle) < 4:
        return ""
    hits: list[str] = []
    for f in dict.fromkeys(files):
        try:
            for n, src_line in enumerate(f.read_text(encoding="utf-8").split("\n"), start=1):
                if src_line.strip() == needle:
                    hits.append(f"'{f}', line {n}")
        except (OSError, UnicodeDecodeError):
            continue
    if not hits:
        return ""
    more = f" (and {len(hits) - 3} more)" if len(hits) > 3 else ""
    return f" That line is written at {', '.join(hits[:3])}{more}."


def _file_context(path: Path, lineno: int) -> str:
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return ""
    start, end = max(0, lineno - 4), min(len(lines), lineno + 3)
    width = len(str(end))
    return "\n".join(
        f"{'>' if i + 1 == lineno else ' '} {i + 1:>{width}} | {lines[i]}" for i in range(start, end)
    )


def parse_rendered(
    text: str, *, description: str, source: AssembledSource, env: jinja2.Environment | None = None
) -> Any:
    """Parse rendered track text as JSON.

    Args:
        env: the environment ``text`` was rendered in; with it, an error is mapped back to the part
            file and line it comes from (:func:`esbench.track.sourcemap.rendered_origin`).

    Raises:
        TrackSyntaxError: invalid JSON; the message names the file (a collected part or the main
            file) and line the error comes from when it can be told (else it guesses it from the
            text of the offending line), gives the line and column in the rendered text, shows the
            lines around it, and saves the rendered text to a temporary file for inspection.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", prefix="esbench-rendered-", suffix=".json", delete=False
        ) as tmp:
            tmp.write(text)
        origin = rendered_origin(env, source, text, e.pos) if env is not None else None
        causes = (
            "Typical causes are a missing or extra comma between collected parts or list items, or a "
            "template expression that rendered empty."
        )
        rendered_context = _json_error_context(text, e.lineno, e.colno)
        if origin is not None:
            path, lineno = origin
            raise TrackSyntaxError(
                f"{description} is not valid JSON after rendering: {e.msg} at '{path}', line {lineno} "
                f"(line {e.lineno}, column {e.colno} of the rendered text, saved to '{tmp.name}'). "
                f"{causes} Lines around it in '{path.name}':\n{_file_context(path, lineno)}\n"
                f"and in the rendered text:\n{rendered_context}",
                e,
            ) from e
        lines = text.split("\n")
        offending = lines[e.lineno - 1] if 0 < e.lineno <= len(lines) else ""
        raise TrackSyntaxError(
            f"{description} is not valid JSON after rendering: {e.msg} at line {e.lineno}, column {e.colno} "
            f"of the rendered text (saved to '{tmp.name}').{_source_guess(offending, source.files)} "
            f"{causes} Lines around the error:\n{rendered_context}",
            e,
        ) from e
