"""Rally's ``esrally.track.params`` (2.13): the param source base classes plugins subclass.

``ParamSource``, ``DelegatingParamSource``, ``IndexIdConflict`` and ``Slice`` keep Rally's
behaviour. ``BulkIndexParamSource`` is esbench's bulk param source behind Rally's constructor
``(track, params, **kwargs)``: same parameters (``bulk-size``, ``corpora``, ``indices``,
``ingest-percentage``, ``conflicts``...), same per-client partitioning, reading the corpora the
race prepared. ``CreateComposableTemplateParamSource`` / ``CreateComponentTemplateParamSource``
give ``{"templates": [(name, body)], "request-params": ...}`` as Rally's do (and as esbench's
template runners expect), with ``template_definitions`` for subclasses to rewrite.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from enum import Enum
from typing import Any, cast

from esbench.compat.rally_exceptions import InvalidSyntax
from esbench.compat.runtime import active_corpora
from esbench.driver.worker.params.base import get_target  # noqa: F401  (Rally's params.get_target)


class ParamSource:
    """Rally's ``ParamSource(track, params, **kwargs)``: ``partition()`` returns itself,
    ``params()`` the operation's params, ``size()`` None (endless), ``infinite`` from ``size()``."""

    def __init__(self, track: Any, params: dict[str, Any], **kwargs: Any) -> None:
        self.track = track
        self._params = params
        self.kwargs = kwargs

    def partition(self, partition_index: int, total_partitions: int) -> Any:
        return self

    @property
    def infinite(self) -> bool:
        return self.size() is None

    def size(self) -> int | None:
        return None

    def params(self) -> dict[str, Any]:
        return self._params

    def _client_params(self) -> dict[str, Any]:
        return {
            "request-timeout": self._params.get("request-timeout"),
            "headers": self._params.get("headers"),
            "opaque-id": self._params.get("opaque-id"),
        }


class DelegatingParamSource(ParamSource):
    """Rally: a function param source, called with ``(track, params, **kwargs)`` on every request."""

    def __init__(self, track: Any, params: dict[str, Any], delegate: Any, **kwargs: Any) -> None:
        super().__init__(track, params, **kwargs)
        self.delegate = delegate

    def params(self) -> dict[str, Any]:
        # A plugin's function: Rally's dict API.
        return cast("dict[str, Any]", self.delegate(self.track, self._params, **self.kwargs))


class IndexIdConflict(Enum):
    """Rally: which id conflicts a bulk source simulates."""

    NoConflicts = 0
    SequentialConflicts = 1
    RandomConflicts = 2


class Slice:
    """Rally's ``Slice(source_class, offset, number_of_lines)``: reads ``number_of_lines`` lines
    starting after line ``offset`` of a file, ``bulk_size`` lines per iteration step."""

    def __init__(self, source_class: Any, offset: int, number_of_lines: int) -> None:
        self.source_class = source_class
        self.source: Any = None
        self.offset = offset
        self.number_of_lines = number_of_lines
        self.current_line = 0
        self.bulk_size: int | None = None
        self.logger = logging.getLogger(__name__)

    def open(self, file_name: str, mode: str, bulk_size: int) -> Slice:
        self.bulk_size = bulk_size
        self.source = self.source_class(file_name, mode).open()
        for _ in range(self.offset):
            if not self.source.readline():
                break
        return self

    def close(self) -> None:
        self.source.close()
        self.source = None

    def __iter__(self) -> Slice:
        return self

    def __next__(self) -> list[Any]:
        if self.current_line >= self.number_of_lines:
            raise StopIteration()
        assert self.bulk_size is not None
        lines = self.source.readlines(min(self.bulk_size, self.number_of_lines - self.current_line))
        self.current_line += len(lines)
        if not lines:
            raise StopIteration()
        return cast("list[Any]", lines)

    def __str__(self) -> str:
        return f"{self.source}[{self.offset};{self.offset + self.number_of_lines}]"


class BulkIndexParamSource(ParamSource):
    """Rally's bulk param source (see module doc); ``partition(i, n)`` gives client ``i`` its slice.

    Raises:
        esbench.exceptions.ConfigError: bad bulk parameters, or no prepared corpora.
    """

    def __init__(self, track: Any, params: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(track, params, **kwargs)
        from esbench.driver.worker.params.bulk import BulkParamSource

        model = getattr(track, "_esbench_model", track)
        self._inner = BulkParamSource(model, params, corpora=active_corpora(), **kwargs)
        # Rally's used_corpora() reads this to decide which corpora to prepare.
        self.corpora = list(getattr(track, "corpora", []))

    def partition(self, partition_index: int, total_partitions: int) -> Any:
        return self._inner.partition(partition_index, total_partitions)

    def params(self) -> dict[str, Any]:
        raise RuntimeError("BulkIndexParamSource must be partitioned per client (Rally: partition() first).")


def _merge(target: dict[str, Any], changes: Mapping[str, Any]) -> None:
    for k, v in changes.items():
        if k in target and isinstance(target[k], dict) and isinstance(v, Mapping):
            _merge(target[k], v)
        else:
            target[k] = v


class CreateTemplateParamSource(ParamSource):
    """Rally's base of the template param sources: ``template`` + ``body`` from the operation, or
    the track's templates (filtered by ``template``, ``settings`` merged into
    ``template.settings``).

    Raises:
        InvalidSyntax: an unknown ``template``, or neither a body nor templates in the track.
    """

    def __init__(self, track: Any, params: dict[str, Any], templates: Any, **kwargs: Any) -> None:
        super().__init__(track, params, **kwargs)
        self.request_params = params.get("request-params", {})
        self.template_definitions: list[tuple[str, Any]] = []
        if "template" in params and "body" in params:
            self.template_definitions.append((params["template"], params["body"]))
        elif templates:
            wanted = params.get("template")
            settings = params.get("settings")
            for template in templates:
                if not wanted or template.name == wanted:
                    body = copy.deepcopy(template.content)
                    if settings:
                        _merge(body.setdefault("template", {}).setdefault("settings", {}), settings)
                    self.template_definitions.append((template.name, body))
            if wanted and not self.template_definitions:
                names = ", ".join(t.name for t in templates)
                raise InvalidSyntax(f"Unknown template: {wanted}. Available templates: {names}.")
        else:
            raise InvalidSyntax(
                f"Please set the properties 'template' and 'body' for the {params.get('operation-type')} "
                f"operation or declare composable and/or component templates in the track"
            )

    def params(self) -> dict[str, Any]:
        return {"templates": self.template_definitions, "request-params": self.request_params}


class CreateComposableTemplateParamSource(CreateTemplateParamSource):
    """Rally's: the track's composable templates."""

    def __init__(self, track: Any, params: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(track, params, track.composable_templates, **kwargs)


class CreateComponentTemplateParamSource(CreateTemplateParamSource):
    """Rally's: the track's component templates."""

    def __init__(self, track: Any, params: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(track, params, track.component_templates, **kwargs)
