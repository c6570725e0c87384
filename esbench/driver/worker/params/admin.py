"""Param sources of administrative operations: resolve what to create or delete from the track.

Semantics follow Rally's ``esrally/track/params.py`` (``CreateIndexParamSource`` and friends):

* ``create-index`` creates the track's indices (all, or those named by ``index``) with their
  bodies, ``settings`` merged into each body's ``settings``; names in ``index`` that the track does
  not define are created with ``body`` (Rally creates nothing for them when the track has indices);
* ``delete-index`` deletes ``index`` (a name, pattern or list) or all track indices;
  ``only-if-exists`` defaults to True;
* data streams and templates work the same way with ``data-stream`` and ``template``; for
  composable and component templates ``settings`` is merged into ``template.settings``;
* ``force-merge`` targets ``index``/``data-stream`` or all track indices and data streams.

Model bodies are deep-copied before merging: the track model is shared and read-only.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from esbench.driver.worker.params.base import ParamSource, get_target
from esbench.driver.worker.runners.base import RallyParams
from esbench.exceptions import ConfigError
from esbench.track.model import IndexTemplate, Track


def _names(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    # Anything else is a list of names (Rally's create-index "index" parameter).
    return [str(v) for v in cast("Iterable[object]", value)]


def _deep_merge(target: dict[str, Any], changes: Mapping[str, Any]) -> None:
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


def _copy(body: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return copy.deepcopy(dict(body)) if body is not None else None


def _op(params: RallyParams, kwargs: Mapping[str, object]) -> str:
    return str(kwargs.get("operation_name") or params.get("name") or params.get("operation-type", "?"))


class CreateIndexParamSource(ParamSource):
    """``create-index`` -> ``indices: [(name, body)]``, ``request-params``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        wanted = _names(params.get("index"))
        settings = params.get("settings")
        definitions: list[tuple[str, object]] = []
        for index in track.indices:
            if wanted and index.name not in wanted:
                continue
            body = _copy(index.body)
            if settings:
                body = body or {}
                body.setdefault("settings", {})
                body["settings"].update(copy.deepcopy(dict(settings)))
            definitions.append((index.name, body))
        known = {i.name for i in track.indices}
        for name in wanted:
            if name not in known:
                definitions.append((name, _copy(params.get("body"))))
        if not definitions:
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' (create-index) has nothing to create: set 'index' "
                f"(and optionally 'body') or define indices in the track."
            )
        self._params["indices"] = definitions
        self._params.setdefault("request-params", {})


class DeleteIndexParamSource(ParamSource):
    """``delete-index`` -> ``indices: [name]``, ``only-if-exists`` (default True)."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        names = _names(params.get("index")) or [i.name for i in track.indices]
        if not names:
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' (delete-index) targets no index: set 'index'."
            )
        self._params["indices"] = names
        self._params["only-if-exists"] = params.get("only-if-exists", True)
        self._params.setdefault("request-params", {})


class CreateDataStreamParamSource(ParamSource):
    """``create-data-stream`` -> ``data-streams: [name]``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        wanted = _names(params.get("data-stream"))
        if track.data_streams:
            names = [d.name for d in track.data_streams if not wanted or d.name in wanted]
            names += [n for n in wanted if n not in names]
        else:
            names = wanted
        if not names:
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' (create-data-stream) has nothing to create: "
                f"set 'data-stream'."
            )
        self._params["data-streams"] = names
        self._params.setdefault("request-params", {})


class DeleteDataStreamParamSource(ParamSource):
    """``delete-data-stream`` -> ``data-streams: [name]``, ``only-if-exists`` (default True)."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        names = _names(params.get("data-stream")) or [d.name for d in track.data_streams]
        if not names:
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' (delete-data-stream) targets no data stream: "
                f"set 'data-stream'."
            )
        self._params["data-streams"] = names
        self._params["only-if-exists"] = params.get("only-if-exists", True)
        self._params.setdefault("request-params", {})


def _template_definitions(
    params: RallyParams,
    templates: Sequence[IndexTemplate],
    settings_path: tuple[str, ...],
    op_name: str,
) -> list[tuple[str, object]]:
    if "template" in params and "body" in params:
        return [(str(params["template"]), _copy(params["body"]))]
    if not templates:
        raise ConfigError(
            f"Operation '{op_name}' needs 'template' and 'body', or templates defined in the track."
        )
    wanted = params.get("template")
    settings = params.get("settings")
    definitions: list[tuple[str, object]] = []
    for template in templates:
        if wanted and template.name != wanted:
            continue
        body = _copy(template.content) or {}
        if settings:
            target = body
            for key in settings_path:
                target = target.setdefault(key, {})
            _deep_merge(target, settings)
        definitions.append((template.name, body))
    if wanted and not definitions:
        known = ", ".join(t.name for t in templates)
        raise ConfigError(
            f"Operation '{op_name}' names the unknown template '{wanted}'. Known templates: {known}."
        )
    return definitions


class CreateIndexTemplateParamSource(ParamSource):
    """``create-index-template`` (legacy) -> ``templates: [(name, body)]``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        self._params["templates"] = _template_definitions(
            params, track.templates, ("settings",), _op(params, kwargs)
        )
        self._params.setdefault("request-params", {})


class CreateComposableTemplateParamSource(ParamSource):
    """``create-composable-template`` -> ``templates: [(name, body)]``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        self._params["templates"] = _template_definitions(
            params, track.composable_templates, ("template", "settings"), _op(params, kwargs)
        )
        self._params.setdefault("request-params", {})


class CreateComponentTemplateParamSource(ParamSource):
    """``create-component-template`` -> ``templates: [(name, body)]``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        self._params["templates"] = _template_definitions(
            params, track.component_templates, ("template", "settings"), _op(params, kwargs)
        )
        self._params.setdefault("request-params", {})


class _DeleteTemplateParamSource(ParamSource):
    def _templates(self, track: Track) -> Sequence[IndexTemplate]:
        raise NotImplementedError

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        templates = self._templates(track)
        wanted = params.get("template")
        definitions: list[tuple[str, bool, str | None]] = []
        if templates and (not wanted or any(t.name == wanted for t in templates)):
            for t in templates:
                if not wanted or t.name == wanted:
                    definitions.append((t.name, t.delete_matching_indices, t.pattern))
        elif wanted:
            delete_matching = bool(params.get("delete-matching-indices", False))
            pattern = params.get("index-pattern")
            if delete_matching and not pattern:
                raise ConfigError(
                    f"Operation '{_op(params, kwargs)}' sets 'delete-matching-indices' "
                    f"but no 'index-pattern'."
                )
            definitions.append((str(wanted), delete_matching, pattern if delete_matching else None))
        else:
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' needs 'template' or templates defined in the track."
            )
        self._params["templates"] = definitions
        self._params["only-if-exists"] = params.get("only-if-exists", True)
        self._params.setdefault("request-params", {})


class DeleteIndexTemplateParamSource(_DeleteTemplateParamSource):
    """``delete-index-template`` (legacy) -> ``templates: [(name, delete-matching, pattern)]``."""

    def _templates(self, track: Track) -> Sequence[IndexTemplate]:
        return track.templates


class DeleteComposableTemplateParamSource(_DeleteTemplateParamSource):
    """``delete-composable-template`` -> ``templates: [(name, delete-matching, pattern)]``."""

    def _templates(self, track: Track) -> Sequence[IndexTemplate]:
        return track.composable_templates


class DeleteComponentTemplateParamSource(ParamSource):
    """``delete-component-template`` -> ``templates: [name]``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        wanted = params.get("template")
        if track.component_templates and (
            not wanted or any(t.name == wanted for t in track.component_templates)
        ):
            names = [t.name for t in track.component_templates if not wanted or t.name == wanted]
        elif wanted:
            names = [str(wanted)]
        else:
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' needs 'template' or component templates in the track."
            )
        self._params["templates"] = names
        self._params["only-if-exists"] = params.get("only-if-exists", True)
        self._params.setdefault("request-params", {})


class ForceMergeParamSource(ParamSource):
    """``force-merge`` -> ``index`` (default: all track indices and data streams, else ``_all``),
    ``max-num-segments``, ``mode`` (``blocking``), ``poll-period`` (10 s)."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        names = [i.name for i in track.indices] + [d.name for d in track.data_streams]
        default = ",".join(names) if names else "_all"
        self._params["index"] = params.get("index") or params.get("data-stream") or default
        mode = params.get("mode", "blocking")
        if mode not in ("blocking", "polling"):
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}': 'mode' must be 'blocking' or 'polling', got '{mode}'."
            )
        self._params["mode"] = mode
        self._params["poll-period"] = params.get("poll-period", 10)


class SleepParamSource(ParamSource):
    """``sleep``: checks that ``duration`` is a non-negative number of seconds."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        duration = params.get("duration")
        if duration is None:
            raise ConfigError(f"Operation '{_op(params, kwargs)}' (sleep) needs 'duration' (seconds).")
        if (
            not isinstance(duration, numbers.Number)
            or isinstance(duration, bool)
            or cast(float, duration) < 0
        ):
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' (sleep): 'duration' must be a non-negative "
                f"number, got {duration!r}."
            )


class OpenPointInTimeParamSource(ParamSource):
    """``open-point-in-time`` -> ``index`` (Rally's default target), ``keep-alive``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        target = get_target(track, params)
        if not target:
            raise ConfigError(f"Operation '{_op(params, kwargs)}' (open-point-in-time) needs 'index'.")
        self._params["index"] = target


class ClosePointInTimeParamSource(ParamSource):
    """``close-point-in-time``: checks ``with-point-in-time-from``."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        if not params.get("with-point-in-time-from"):
            raise ConfigError(
                f"Operation '{_op(params, kwargs)}' (close-point-in-time) needs 'with-point-in-time-from' "
                f"(the name of an open-point-in-time operation)."
            )
