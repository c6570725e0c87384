"""Where a line of a rendered track comes from: the part file and line of its template source.

A JSON error in a rendered track is found at a line of the *rendered* text, which is not a line
of any file: ``{{ rally.collect(parts=...) }}`` pulls part files in, and ``{% set %}`` lines, loops
and conditionals add, repeat and drop lines while rendering. To name the file and line a user has
to fix, the assembled source is rendered a second time with a marker before every newline that
lies in literal text (outside ``{{ }}``, ``{% %}`` and ``{# #}``); each marker carries its line of
the assembled source, which :class:`~esbench.track.assemble.AssembledSource` maps to its part file.
With the markers removed, the second rendering must equal the first, or no answer is given (a
``{% set %}...{% endset %}`` block or a filter that reads the marked text could change it).
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from esbench.track.assemble import AssembledSource

# Separator characters: not whitespace (so "{%- -%}" whitespace control leaves them in place) and
# never in a track.
_START, _END = "\x1e", "\x1f"
_MARK_RE = re.compile(f"{_START}(\\d+){_END}")
_TAGS = {"{{": "}}", "{%": "%}", "{#": "#}"}


def mark_lines(text: str) -> str:
    """``text`` with ``<START>n<END>`` before every newline of line ``n`` (1-based) that is literal
    template data, not inside a Jinja tag, expression or comment."""
    out: list[str] = []
    line = 1
    i = 0
    closer: str | None = None
    while i < len(text):
        if closer is None and text[i : i + 2] in _TAGS:
            closer = _TAGS[text[i : i + 2]]
            out.append(text[i : i + 2])
            i += 2
            continue
        if closer is not None and text.startswith(closer, i):
            out.append(closer)
            i += len(closer)
            closer = None
            continue
        char = text[i]
        if char == "\n":
            if closer is None:
                out.append(f"{_START}{line}{_END}")
            line += 1
        out.append(char)
        i += 1
    return "".join(out)


def rendered_origin(
    env: jinja2.Environment, source: AssembledSource, rendered: str, position: int
) -> tuple[Path, int] | None:
    """The ``(file, 1-based line)`` that produced character ``position`` of ``rendered`` (the result
    of rendering ``source`` in ``env``), or None when it cannot be told.

    The answer is the source line of the first literal newline at or after ``position`` (the line
    whose text holds the position), else of the last one before it (an error at the end of the text).
    """
    try:
        marked = env.from_string(mark_lines(source.text)).render()
    except Exception:  # the first rendering succeeded; any difference here only means "unknown"
        return None
    plain: list[str] = []
    marks: list[tuple[int, int]] = []  # (offset in the plain text, assembled line)
    length = 0
    pos = 0
    for match in _MARK_RE.finditer(marked):
        chunk = marked[pos : match.start()]
        plain.append(chunk)
        length += len(chunk)
        marks.append((length, int(match.group(1))))
        pos = match.end()
    plain.append(marked[pos:])
    if "".join(plain) != rendered or not marks:
        return None
    line = next((n for offset, n in marks if offset >= position), marks[-1][1])
    return source.origin(line)
