"""The Jinja2 environment tracks are rendered in, built to behave like Rally's.

Facts from Rally (``esrally/track/loader.py``: ``render_template``, ``default_internal_template_vars``,
``render_template_from_file``, ``TrackSpecificationReader._load_template``):

* loader: the ``rally.helpers`` macros first (so a track cannot shadow them), then a
  ``FileSystemLoader`` on the track directory, so ``{% include %}``/``{% import %}`` resolve
  relative to the track root; default ``Undefined`` (an undefined name renders as ``""``), no
  autoescape, no block trimming;
* globals: the track params, then the internal names, which win over params: ``now`` (epoch
  seconds, float, taken once per load), ``glob(pattern)`` (matches relative to the track directory),
  ``build_flavor``, ``serverless_operator``; filters ``days_ago``, ``get_start_date``, ``get_end_date``;
* index bodies and template files are rendered on their own, with only the track params,
  ``build_flavor``, ``serverless_operator`` and ``rally.helpers`` (no file loader, no ``now``,
  ``glob`` or date filters).
"""

from __future__ import annotations

import glob as globlib
import os
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

import jinja2
from jinja2 import meta, nodes

from esbench.exceptions import TrackSyntaxError
from esbench.track import dates
from esbench.track.assemble import AssembledSource
from esbench.track.dialect import RALLY, Dialect, DialectSpec

# Names esbench (like Rally) defines itself; a track param of the same name is rejected.
RESERVED_NAMES: frozenset[str] = frozenset({"now", "glob", "build_flavor", "serverless_operator"})

HELPERS_NAME = "rally.helpers"

# Our own macro text with the semantics of Rally's ``rally.helpers``:
# collect(parts): include every file matching the glob, joined by ", " (runtime fallback of the
# textual pre-inclusion); exists_set_param(...): emit `, "name": <json>` only if the value is
# defined or a default is given.
HELPERS_SOURCE = """\
{%- macro collect(parts) -%}
{%- for part in glob(parts) -%}
{%- if not loop.first %}, {% endif -%}
{% include part %}
{%- endfor -%}
{%- endmacro -%}
{%- macro exists_set_param(setting_name, value, default_value=none, comma=true) -%}
{%- if value is defined or default_value is not none -%}
{%- if comma %} , {% endif -%}
"{{ setting_name }}": {{ value | default(default_value) | tojson }}
{%- endif -%}
{%- endmacro -%}
"""

_FILTERS: dict[str, Callable[..., object]] = {
    "days_ago": dates.days_ago,
    "get_start_date": dates.get_start_date,
    "get_end_date": dates.get_end_date,
}

# OSB 2.4.0 (``osbenchmark/workload/loader.py``: ``default_internal_template_vars``,
# ``render_template``) has ``days_ago`` and ``version_between`` only.
_OSB_FILTERS: dict[str, Callable[..., object]] = {
    "days_ago": dates.days_ago,
    "version_between": dates.version_between,
}


def _environment(
    loader: jinja2.BaseLoader | None,
    params: Mapping[str, object],
    internal: Mapping[str, object],
    dialect: DialectSpec = RALLY,
) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = [jinja2.DictLoader({dialect.helpers_name: HELPERS_SOURCE})]
    if loader is not None:
        loaders.append(loader)
    if dialect.dialect is Dialect.OSB:
        # OSB renders with select_autoescape(["html", "xml"]), which escapes text rendered from a
        # string (the workload itself) and not included .json files; the output differs from
        # Rally's where a value holds <, >, &, ' or ".
        env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders), autoescape=jinja2.select_autoescape(["html", "xml"])
        )
        env.filters.update(_OSB_FILTERS)
    else:
        env = jinja2.Environment(loader=jinja2.ChoiceLoader(loaders))
    env.globals.update(params)
    # Internal names are applied after the params so a track param can never override them.
    env.globals.update(internal)
    return env


def track_environment(
    track_dir: Path,
    params: Mapping[str, object],
    *,
    clock: Callable[[], float] = time.time,
    build_flavor: str | None = "default",
    serverless_operator: bool = False,
    dialect: DialectSpec = RALLY,
) -> jinja2.Environment:
    """The environment ``track.json`` is rendered in (see module docstring).

    Args:
        track_dir: the track root; includes and ``glob()`` resolve relative to it.
        params: track params, as Jinja globals.
        clock: returns epoch seconds for ``now`` (injectable for tests).
        build_flavor: ``"default"`` or ``"serverless"``.
        serverless_operator: whether the target is operated serverless.
        dialect: OSB's workloads get ``benchmark.helpers``, OSB's filters and autoescaping, and
            neither ``build_flavor`` nor ``serverless_operator`` (OSB has no such globals).
    """
    root = str(track_dir)

    def relative_glob(pattern: str) -> list[str]:
        # Rally returns the matches in file-system order; sorted is the same set, deterministically.
        return sorted(os.path.relpath(p, root) for p in globlib.glob(os.path.join(root, pattern)))

    internal: dict[str, object] = {"now": clock(), "glob": relative_glob}
    if dialect.dialect is Dialect.RALLY:
        internal = {"build_flavor": build_flavor, "serverless_operator": serverless_operator, **internal}
    env = _environment(jinja2.FileSystemLoader(root), params, internal, dialect)
    if dialect.dialect is Dialect.RALLY:
        env.filters.update(_FILTERS)
    return env


def fragment_environment(
    params: Mapping[str, object],
    *,
    build_flavor: str | None = "default",
    serverless_operator: bool = False,
    dialect: DialectSpec = RALLY,
) -> jinja2.Environment:
    """The environment index bodies and template files are rendered in (see module docstring;
    OSB's ``_load_template`` renders them with the params and its filters only)."""
    if dialect.dialect is Dialect.OSB:
        return _environment(None, params, {}, dialect)
    return _environment(
        None, params, {"build_flavor": build_flavor, "serverless_operator": serverless_operator}
    )


def _where(source: AssembledSource, lineno: int | None, fallback: str) -> str:
    if lineno is None:
        return fallback
    origin = source.origin(lineno)
    if origin is None:
        return f"{fallback} (line {lineno} of the assembled source)"
    return f"'{origin[0]}', line {origin[1]}"


def _msg(e: jinja2.TemplateSyntaxError) -> str:
    return (e.message or "syntax error").rstrip(".")


def _template_line(tb: TracebackType | None) -> tuple[str | None, int | None]:
    # Jinja rewrites tracebacks so template frames carry the template's file name and line.
    found: tuple[str | None, int | None] = (None, None)
    for frame, lineno in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name == "<template>" or "__jinja_exception__" in frame.f_globals:
            found = (name, lineno)
    return found


def render_assembled(env: jinja2.Environment, source: AssembledSource, *, description: str) -> str:
    """Render the assembled ``source`` in ``env``.

    Args:
        description: what is rendered, for messages (e.g. ``"track 'geonames'"``).

    Raises:
        TrackSyntaxError: invalid Jinja syntax, a missing include, or an error while rendering;
            the message names the file and line of the part it comes from.
    """
    main = f"'{source.files[0]}'" if source.files else description
    try:
        template = env.from_string(source.text)
    except jinja2.TemplateSyntaxError as e:
        raise TrackSyntaxError(
            f"Invalid Jinja2 syntax in {description} at {_where(source, e.lineno, main)}: {_msg(e)}. "
            f"Fix the template syntax there (check that every {{% ... %}} block is closed and every "
            f"{{{{ ... }}}} expression is complete).",
            e,
        ) from e
    try:
        return template.render()
    except jinja2.TemplateNotFound as e:
        name, lineno = _template_line(e.__traceback__)
        where = _where(source, lineno, main) if name == "<template>" else f"'{name}', line {lineno}"
        raise TrackSyntaxError(
            f"{description} includes or imports '{e.name}' at {where}, but there is no such file. Paths in "
            f"include/import are relative to the track directory; fix the path or add the file.",
            e,
        ) from e
    except jinja2.TemplateSyntaxError as e:
        where = f"'{e.filename or e.name}', line {e.lineno}"
        raise TrackSyntaxError(
            f"Invalid Jinja2 syntax in a file included by {description} at {where}: {_msg(e)}. "
            f"Fix the template syntax there.",
            e,
        ) from e
    except Exception as e:  # any error raised while rendering user templates is a track error
        name, lineno = _template_line(e.__traceback__)
        if name == "<template>":
            where = _where(source, lineno, main)
        elif name is not None:
            where = f"'{name}', line {lineno}"
        else:
            where = main
        raise TrackSyntaxError(
            f"Rendering {description} failed at {where}: {type(e).__name__}: {e}. Fix the template "
            "expression "
            f"there or the --track-params it uses.",
            e,
        ) from e


def _parse_env() -> jinja2.Environment:
    env = jinja2.Environment()
    env.filters.update(_FILTERS)
    env.filters.update(_OSB_FILTERS)
    return env


def referenced_variables(source: str, *, include_root: Path | None = None) -> set[str]:
    """Names ``source`` reads from the template context (candidates for track params).

    Like Rally, this is ``jinja2.meta.find_undeclared_variables`` over the (assembled) source. In
    addition, files pulled in by ``{% include "constant-name" %}`` below ``include_root`` are
    scanned too (Rally does not; so a param used only in an included file is accepted by esbench
    and rejected as unused by Rally).

    Raises:
        TrackSyntaxError: the source is not valid Jinja.
    """
    env = _parse_env()
    found: set[str] = set()
    seen: set[str] = set()

    def scan(text: str, label: str) -> None:
        try:
            ast = env.parse(text)
        except jinja2.TemplateSyntaxError as e:
            raise TrackSyntaxError(
                f"Invalid Jinja2 syntax in {label}, line {e.lineno}: {_msg(e)}. Fix the template syntax "
                "there.",
                e,
            ) from e
        found.update(meta.find_undeclared_variables(ast))
        if include_root is None:
            return
        names: list[str] = []
        for node in ast.find_all(nodes.Include):
            if isinstance(node.template, nodes.Const) and isinstance(node.template.value, str):
                names.append(node.template.value)
        for call in ast.find_all(nodes.Call):
            # ``rally.collect(parts="...")`` rendered at run time (not pre-included) includes every match.
            if isinstance(call.node, nodes.Getattr) and call.node.attr == "collect":
                consts = [kw.value for kw in call.kwargs if kw.key == "parts"] + call.args[:1]
                for const in consts:
                    if isinstance(const, nodes.Const) and isinstance(const.value, str):
                        root = str(include_root)
                        names += sorted(
                            os.path.relpath(p, root) for p in globlib.glob(os.path.join(root, const.value))
                        )
        for name in names:
            path = include_root / name
            if name in seen or name.endswith(".helpers") or not path.is_file():
                continue
            seen.add(name)
            try:
                scan(path.read_text(encoding="utf-8"), f"'{path}'")
            except (OSError, UnicodeDecodeError):
                continue

    scan(source, "the track")
    return found
