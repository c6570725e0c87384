"""Load a track: locate → assemble (``rally.collect``) → render (Jinja) → parse JSON → validate
(schema) → build the model → check track params → (test mode).

Public entry points: :func:`load_track`, :func:`render_track_source`, :func:`locate_track`,
:func:`available_tracks`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jinja2

from esbench.exceptions import NotFound, TrackValidationError, UserError
from esbench.home import builtin_tracks_dir, esbench_home
from esbench.track import render
from esbench.track.assemble import AssembledSource, assemble, assemble_file
from esbench.track.dialect import (
    OSB,
    RALLY,
    DialectSpec,
    dialect_of_directory,
    dialect_of_file,
    in_own_words,
    to_rally_words,
)
from esbench.track.fingerprint import track_fingerprint
from esbench.track.model import Track
from esbench.track.params import check_track_params, exposed_params
from esbench.track.pluginfile import has_plugins
from esbench.track.reader import TrackReader
from esbench.track.rendered import parse_rendered
from esbench.track.schema import validate_track
from esbench.track.testmode import apply_test_mode

SUPPORTED_TRACK_VERSION = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class TrackLocation:
    """Where a track lives.

    Attributes:
        name: the track name (directory name, or the file name without ``.json``).
        root: the track directory.
        track_file: the track's JSON file (usually ``root/"track.json"``, or ``root/"workload.json"``
            for an OpenSearch Benchmark workload).
        dialect: whose words the track is written in (:mod:`esbench.track.dialect`).
    """

    name: str
    root: Path
    track_file: Path
    dialect: DialectSpec = RALLY


def track_search_dirs() -> tuple[Path, ...]:
    """Directories searched for ``--track=NAME``, in order: built-in tracks, then ``<home>/tracks``."""
    return (builtin_tracks_dir(), esbench_home() / "tracks")


def available_tracks() -> list[TrackLocation]:
    """Every track found by name (a directory with a ``track.json``, or an OpenSearch Benchmark
    workload: a directory with a ``workload.json``), built-in ones first.

    A user track with the same name as a built-in one is hidden by it (like ``--track`` resolves).
    """
    found: dict[str, TrackLocation] = {}
    for base in track_search_dirs():
        if not base.is_dir():
            continue
        definitions = sorted(p for d in (RALLY, OSB) for p in base.rglob(d.definition_file))
        for track_file in definitions:
            name = track_file.parent.relative_to(base).as_posix()
            dialect = dialect_of_directory(track_file.parent)
            if name != "." and name not in found and track_file.name == dialect.definition_file:
                found[name] = TrackLocation(
                    name=name, root=track_file.parent, track_file=track_file, dialect=dialect
                )
    return list(found.values())


def locate_track(*, name: str | None = None, path: Path | str | None = None) -> TrackLocation:
    """Resolve ``--track=NAME`` or ``--track-path=DIR|FILE``.

    Raises:
        UserError: both or neither given; the path is not a directory with ``track.json`` or a
            ``.json`` file.
        NotFound: no track of that name; the message lists the available ones.
    """
    if (name is None) == (path is None):
        raise UserError("Give exactly one of --track=NAME and --track-path=DIR|FILE.")
    if path is not None:
        p = Path(path).expanduser().resolve()
        if p.is_dir():
            dialect = dialect_of_directory(p)
            track_file = p / dialect.definition_file
            if not track_file.is_file():
                raise UserError(
                    f"Track directory '{p}' has no track.json (nor an OpenSearch Benchmark workload.json). "
                    "Point --track-path at a directory containing track.json or workload.json, or at the "
                    "track's JSON file."
                )
            return TrackLocation(name=p.name, root=p, track_file=track_file, dialect=dialect)
        if p.is_file():
            if p.suffix != ".json":
                raise UserError(f"Track file '{p}' must be a .json file (or give the track's directory).")
            dialect = dialect_of_file(p)
            # ``dir/track.json`` is the track of ``dir``, named after it as --track-path=dir would be.
            name = p.parent.name if p.name == dialect.definition_file else p.stem
            return TrackLocation(name=name, root=p.parent, track_file=p, dialect=dialect)
        raise UserError(f"Track path '{p}' does not exist. Check --track-path.")
    assert name is not None
    for base in track_search_dirs():
        if (base / name).is_dir():
            dialect = dialect_of_directory(base / name)
            track_file = base / name / dialect.definition_file
            if track_file.is_file():
                return TrackLocation(
                    name=name, root=track_file.parent, track_file=track_file, dialect=dialect
                )
    known = [t.name for t in available_tracks()]
    names = ", ".join(known) or "(none)"
    from esbench.track.repository import close_track_names

    close = close_track_names(name, known)
    guess = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise NotFound(
        f"Unknown track '{name}'.{guess} Available tracks: {names}. Use `esbench list tracks` to see "
        f"them, put your own track under '{esbench_home() / 'tracks'}', or give its directory with "
        "--track-path."
    )


class _Renderer:
    """Renders a track's main file and its index bodies / template files, collecting variables."""

    def __init__(
        self,
        location: TrackLocation,
        params: Mapping[str, object],
        *,
        clock: Callable[[], float],
        build_flavor: str | None,
        serverless_operator: bool,
    ) -> None:
        self.location = location
        self.params = dict(params)
        self.clock = clock
        self.build_flavor = build_flavor
        self.serverless_operator = serverless_operator
        self.referenced: set[str] = set()
        #: The environment the main file was rendered in (set by :meth:`render_main`).
        self.main_env: jinja2.Environment | None = None

    def render_main(self) -> tuple[str, AssembledSource]:
        dialect = self.location.dialect
        source = assemble_file(
            self.location.track_file, base_dir=self.location.root, namespace=dialect.namespace
        )
        env = render.track_environment(
            self.location.root,
            self.params,
            clock=self.clock,
            build_flavor=self.build_flavor,
            serverless_operator=self.serverless_operator,
            dialect=dialect,
        )
        # Render first: its syntax errors carry the part file and line.
        text = render.render_assembled(env, source, description=f"{dialect.noun} '{self.location.name}'")
        self.referenced |= render.referenced_variables(source.text, include_root=self.location.root)
        self.main_env = env
        return text, source

    def _fragment_source(self, relative: str) -> AssembledSource:
        path = self.location.root / relative
        if not path.is_file():
            raise TrackValidationError(
                f"Track '{self.location.name}' refers to the file '{relative}', which does not exist in "
                f"'{self.location.root}'. Fix the file name (relative to the track directory) or add the "
                "file."
            )
        # Rally resolves collects in these files relative to the track directory, not the file's.
        text = path.read_text(encoding="utf-8")
        return assemble(
            text, file=path, base_dir=self.location.root, namespace=self.location.dialect.namespace
        )

    def fragment_variables(self, relative: str) -> set[str]:
        """Names an index body / template file reads (for the unused-param check without rendering)."""
        path = self.location.root / relative
        if not path.is_file():
            return set()
        return render.referenced_variables(self._fragment_source(relative).text)

    def load_fragment(self, relative: str, description: str) -> Any:
        source = self._fragment_source(relative)
        env = render.fragment_environment(
            self.params,
            build_flavor=self.build_flavor,
            serverless_operator=self.serverless_operator,
            dialect=self.location.dialect,
        )
        text = render.render_assembled(env, source, description=description)
        self.referenced |= render.referenced_variables(source.text)
        return parse_rendered(
            text, description=f"'{source.files[0]}' ({description})", source=source, env=env
        )


def _check_version(spec: object, location: TrackLocation) -> None:
    if not isinstance(spec, dict):
        raise TrackValidationError(
            f"Track file '{location.track_file}' renders to a JSON {type(spec).__name__}, not an object. A "
            "track is a "
            f'JSON object with keys like "indices", "corpora" and "challenges".'
        )
    raw = spec.get("version", SUPPORTED_TRACK_VERSION)
    try:
        version = int(raw)
    except (TypeError, ValueError):
        raise TrackValidationError(
            f"Track file '{location.track_file}' has a non-numeric version [{raw}] at $.version. Use "
            '"version": 2.'
        ) from None
    if version != SUPPORTED_TRACK_VERSION:
        raise TrackValidationError(
            f"Track file '{location.track_file}' is in track format version {version}, but esbench supports "
            "version "
            f"{SUPPORTED_TRACK_VERSION} only (like Rally 2.x). Update the track to version 2."
        )


def _fragment_files(spec: Mapping[str, Any]) -> list[str]:
    files = [
        i["body"] for i in spec.get("indices", []) if isinstance(i, dict) and isinstance(i.get("body"), str)
    ]
    for key in ("templates", "composable-templates", "component-templates"):
        files += [
            t["template"]
            for t in spec.get(key, [])
            if isinstance(t, dict) and isinstance(t.get("template"), str)
        ]
    return files


def _render(
    location: TrackLocation,
    params: dict[str, object],
    *,
    clock: Callable[[], float] | None,
    build_flavor: str | None,
    serverless_operator: bool,
) -> tuple[Any, _Renderer]:
    """Render and parse the main track file; the renderer then renders its index bodies and
    template files and holds the variables read so far."""
    renderer = _Renderer(
        location,
        params,
        clock=clock or time.time,
        build_flavor=build_flavor,
        serverless_operator=serverless_operator,
    )
    text, source = renderer.render_main()
    spec = parse_rendered(
        text, description=f"Track file '{location.track_file}'", source=source, env=renderer.main_env
    )
    return spec, renderer


def _render_spec(
    location: TrackLocation,
    params: dict[str, object],
    *,
    clock: Callable[[], float] | None,
    build_flavor: str | None,
    serverless_operator: bool,
) -> tuple[Any, set[str]]:
    spec, renderer = _render(
        location, params, clock=clock, build_flavor=build_flavor, serverless_operator=serverless_operator
    )
    if isinstance(spec, dict):
        for relative in _fragment_files(spec):
            renderer.referenced |= renderer.fragment_variables(relative)
    return spec, renderer.referenced


def track_parameter_names(
    *,
    name: str | None = None,
    path: Path | str | None = None,
    params: Mapping[str, object] | None = None,
    build_flavor: str | None = "default",
    serverless_operator: bool = False,
) -> list[str]:
    """The track params a track reads (sorted; internal and Jinja built-in names removed).

    Found like Rally (``jinja2.meta.find_undeclared_variables`` over the assembled track and its
    index bodies / template files) plus files pulled in by constant ``{% include %}`` and run-time
    ``rally.collect``. ``params`` matter only where they change which files are referenced.

    Raises:
        see :func:`render_track_source` (except TrackParamError).
    """
    location = locate_track(name=name, path=path)
    _, referenced = _render_spec(
        location,
        dict(params or {}),
        clock=None,
        build_flavor=build_flavor,
        serverless_operator=serverless_operator,
    )
    return exposed_params(referenced)


def render_track_source(
    *,
    name: str | None = None,
    path: Path | str | None = None,
    params: Mapping[str, object] | None = None,
    clock: Callable[[], float] | None = None,
    build_flavor: str | None = "default",
    serverless_operator: bool = False,
) -> str:
    """The rendered track JSON, formatted like Rally's ``render-track`` (``json.dumps(..., indent=2)``).

    Only ``track.json`` (with its collected parts and includes) is rendered; index bodies and
    template files stay file references, as in Rally. Unlike Rally's ``render-track``, track params
    are checked (reserved names, params the track does not use).

    Args:
        name / path: ``--track`` / ``--track-path`` (exactly one).
        params: track params.
        clock: epoch seconds for ``now`` (default ``time.time``).
        build_flavor / serverless_operator: values of the template globals of the same name.

    Raises:
        UserError, NotFound: see :func:`locate_track`.
        TrackSyntaxError: invalid Jinja or JSON.
        TrackParamError: reserved or unused track params.
    """
    location = locate_track(name=name, path=path)
    params = dict(params or {})
    spec, referenced = _render_spec(
        location, params, clock=clock, build_flavor=build_flavor, serverless_operator=serverless_operator
    )
    check_track_params(params, referenced, track_name=location.name)
    return json.dumps(spec, indent=2)


def load_track(
    *,
    name: str | None = None,
    path: Path | str | None = None,
    params: Mapping[str, object] | None = None,
    test_mode: bool = False,
    clock: Callable[[], float] | None = None,
    build_flavor: str | None = "default",
    serverless_operator: bool = False,
) -> Track:
    """Load, render, validate and build a track.

    Args:
        name: ``--track=NAME``: looked up in the built-in tracks, then ``<esbench home>/tracks``.
        path: ``--track-path``: a directory with ``track.json``, or a track JSON file.
        params: ``--track-params`` (see :func:`esbench.track.params.parse_track_params`).
        test_mode: apply Rally's test-mode rules (:mod:`esbench.track.testmode`).
        clock: epoch seconds for the template global ``now`` (default ``time.time``).
        build_flavor / serverless_operator: values of the template globals of the same name.

    Returns:
        The immutable :class:`~esbench.track.model.Track` (``params`` = the given params).

    Raises:
        UserError, NotFound: the track cannot be found.
        TrackSyntaxError: invalid Jinja or JSON (file and line).
        TrackValidationError: schema or track-format violation (file and JSON path).
        TrackParamError: reserved or unused track params.
    """
    location = locate_track(name=name, path=path)
    params = dict(params or {})
    spec, renderer = _render(
        location, params, clock=clock, build_flavor=build_flavor, serverless_operator=serverless_operator
    )
    _check_version(spec, location)
    spec = to_rally_words(spec, location.dialect)
    reader = TrackReader(
        name=location.name,
        root=location.root,
        track_file=location.track_file,
        load_fragment=renderer.load_fragment,
        has_plugins=has_plugins(location.root),
        params=params,
        dialect=location.dialect,
    )
    try:
        reader.precheck(spec)
        validate_track(spec, file=location.track_file)
        track = reader.read(spec)
    except TrackValidationError as e:
        if location.dialect is RALLY:
            raise
        raise TrackValidationError(in_own_words(str(e), location.dialect), e) from e
    check_track_params(params, renderer.referenced, track_name=location.name)
    track = replace(
        track, fingerprint=track_fingerprint(spec, location.root, params, track_file=location.track_file)
    )
    return apply_test_mode(track) if test_mode else track
