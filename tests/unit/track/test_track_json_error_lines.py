"""A JSON error in a rendered track is reported at the part file and line it comes from."""

from __future__ import annotations

from pathlib import Path

import pytest

from esbench.exceptions import TrackSyntaxError
from esbench.track import load_track
from esbench.track.sourcemap import mark_lines

MAIN = """\
{% import "rally.helpers" as rally with context %}
{% set p_clients = clients | default(2) %}
{% set p_iterations = 5 %}
{
  "version": 2,
  "indices": [{"name": "parts"}],
  "challenges": [
    {{ rally.collect(parts="challenges/*.json") }}
  ]
}
"""

FIRST = """\
{
  "name": "first",
  "default": true,
  "schedule": [
    {"operation": {"name": "r1", "operation-type": "refresh"}, "clients": {{ p_clients }}}
  ]
}
"""

# Line 5 lacks its comma; the parser stops at line 6, whose rendered text ("iterations": 5) is not
# the text of any source line.
BROKEN = """\
{% for i in range(2) %}{% endfor %}
{
  "name": "second",
  "schedule": [
    {"operation": {"name": "r2", "operation-type": "refresh"}, "clients": {{ p_clients }}}
    {"operation": {"name": "r3", "operation-type": "refresh"}, "iterations": {{ p_iterations }}}
  ]
}
"""


def test_an_error_in_a_collected_part_names_the_part_and_its_line(make_track) -> None:
    root = make_track(
        {"track.json": MAIN, "challenges/a-first.json": FIRST, "challenges/default.json": BROKEN}
    )
    with pytest.raises(TrackSyntaxError) as info:
        load_track(path=root)
    message = info.value.message
    assert f"Expecting ',' delimiter at '{root / 'challenges' / 'default.json'}', line 6 (" in message
    assert "> 6 |" in message and "default.json" in message


def test_an_error_in_the_main_file_names_its_line(make_track) -> None:
    main = MAIN.replace('"indices": [{"name": "parts"}],', '"indices": [{"name": "{{ p_clients }}"}]')
    root = make_track({"track.json": main, "challenges/a-first.json": FIRST})
    with pytest.raises(TrackSyntaxError) as info:
        load_track(path=root)
    assert f"at '{root / 'track.json'}', line 7 (" in info.value.message


def test_newlines_inside_tags_get_no_marker() -> None:
    marked = mark_lines('a\n{% set x = {\n "k": 1} %}\nb {{ x\n }}\n')
    assert marked == 'a\x1e1\x1f\n{% set x = {\n "k": 1} %}\x1e3\x1f\nb {{ x\n }}\x1e5\x1f\n'


def test_without_the_environment_the_line_is_guessed_from_its_text(tmp_path: Path) -> None:
    from esbench.track.assemble import assemble
    from esbench.track.rendered import parse_rendered

    source = assemble('{"a": 1\n"b": 2}', file=tmp_path / "track.json", base_dir=tmp_path)
    with pytest.raises(TrackSyntaxError, match="at line 2, column 1 of the rendered text"):
        parse_rendered('{"a": 1\n"b": 2}', description="t", source=source)
