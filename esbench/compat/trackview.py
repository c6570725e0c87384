"""Rally-shaped, mutable track objects for plugins, and the conversion to and from the model.

Rally hands plugins its own mutable objects (``esrally/track/track.py``: ``Track``, ``Challenge``,
``Parallel``, ``Task``, ``Operation``, ``DocumentCorpus``, ``Documents``, ``Index``,
``DataStream``, ``IndexTemplate``, ``ComponentTemplate``): track processors change them in place
(``on_after_load_track``), param sources and schedulers read them. esbench's model is frozen, so
:func:`to_rally` builds these objects from a :class:`esbench.track.model.Track` and
:func:`from_rally` turns them (after a processor changed them) back into the model. Those two
functions are the only place the two shapes meet.

Attribute names, constructor signatures and defaults are Rally 2.13's. Task scheduling fields that
Rally reads from ``task.params`` (``target-throughput``, ``target-interval``) are read from
``params`` again by :func:`from_rally`, so a processor that rewrites them changes the schedule.
"""

from __future__ import annotations

import fnmatch
import numbers
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from esbench.compat.rally_exceptions import InvalidSyntax
from esbench.corpus.names import archive_suffix, document_file_name
from esbench.exceptions import TrackValidationError
from esbench.track import model
from esbench.track.reader import parse_target_throughput


def _name_matches(name: str, pattern: str | None) -> bool:
    return pattern is None or pattern == "_all" or fnmatch.fnmatch(name, pattern)


class Index:
    """Rally's ``track.Index(name, body=None, types=None)``."""

    def __init__(self, name: str, body: Any = None, types: Any = None) -> None:
        self.name = name
        self.body = body
        self.types = types if types else []

    def matches(self, pattern: str | None) -> bool:
        """Rally's rule: None and ``_all`` match everything, else fnmatch-like globbing."""
        return _name_matches(self.name, pattern)

    def __str__(self) -> str:
        return self.name


class DataStream:
    """Rally's ``track.DataStream(name)``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def matches(self, pattern: str | None) -> bool:
        """Rally's rule: None and ``_all`` match everything, else fnmatch-like globbing."""
        return _name_matches(self.name, pattern)

    def __str__(self) -> str:
        return self.name


class IndexTemplate:
    """Rally's ``track.IndexTemplate(name, pattern, content, delete_matching_indices=False)``."""

    def __init__(
        self, name: str, pattern: Any, content: Any, delete_matching_indices: bool = False
    ) -> None:
        self.name = name
        self.pattern = pattern
        self.content = content
        self.delete_matching_indices = delete_matching_indices

    def __str__(self) -> str:
        return self.name


class ComponentTemplate:
    """Rally's ``track.ComponentTemplate(name, content)``."""

    def __init__(self, name: str, content: Any) -> None:
        self.name = name
        self.content = content

    def __str__(self) -> str:
        return self.name


class Documents:
    """Rally's ``track.Documents``: one document file of a corpus.

    ``document_file`` is the uncompressed file name (an absolute path once the corpus is prepared),
    ``document_archive`` the compressed one (None if the track names an uncompressed file).
    """

    SOURCE_FORMAT_BULK = "bulk"

    def __init__(
        self,
        source_format: str,
        document_file: str | None = None,
        document_archive: str | None = None,
        base_url: str | None = None,
        includes_action_and_meta_data: bool = False,
        number_of_documents: int = 0,
        compressed_size_in_bytes: int | None = 0,
        uncompressed_size_in_bytes: int | None = 0,
        target_index: str | None = None,
        target_data_stream: str | None = None,
        target_type: str | None = None,
        meta_data: Mapping[str, Any] | None = None,
    ) -> None:
        self.source_format = source_format
        self.document_file = document_file
        self.document_archive = document_archive
        self.base_url = base_url
        self.includes_action_and_meta_data = includes_action_and_meta_data
        self.number_of_documents = number_of_documents
        self.compressed_size_in_bytes = compressed_size_in_bytes
        self.uncompressed_size_in_bytes = uncompressed_size_in_bytes
        self.target_index = target_index
        self.target_data_stream = target_data_stream
        self.target_type = target_type
        self.meta_data = dict(meta_data or {})

    def has_compressed_corpus(self) -> bool:
        return self.document_archive is not None

    def has_uncompressed_corpus(self) -> bool:
        return self.document_file is not None

    @property
    def number_of_lines(self) -> int:
        """Lines in the file: twice the documents when every document has its action line."""
        return self.number_of_documents * (2 if self.includes_action_and_meta_data else 1)

    @property
    def is_bulk(self) -> bool:
        return self.source_format == self.SOURCE_FORMAT_BULK

    def __str__(self) -> str:
        return f"{self.source_format} from {self.document_file}"


class DocumentCorpus:
    """Rally's ``track.DocumentCorpus(name, documents=None, meta_data=None)``."""

    def __init__(
        self, name: str, documents: list[Documents] | None = None, meta_data: Any = None
    ) -> None:
        self.name = name
        self.documents = documents if documents else []
        self.meta_data = dict(meta_data or {})

    def number_of_documents(self, source_format: str) -> int:
        return sum(d.number_of_documents for d in self.documents if d.source_format == source_format)

    def filter(
        self,
        source_format: str | None = None,
        target_indices: Any = None,
        target_data_streams: Any = None,
    ) -> DocumentCorpus:
        """Rally's ``DocumentCorpus.filter``: the documents of that format and those targets."""
        kept = []
        for d in self.documents:
            if source_format is not None and d.source_format != source_format:
                continue
            if target_indices and d.target_index not in target_indices:
                continue
            if target_data_streams and d.target_data_stream not in target_data_streams:
                continue
            kept.append(d)
        return DocumentCorpus(self.name, kept, meta_data=self.meta_data)

    def union(self, other: DocumentCorpus) -> DocumentCorpus:
        if self.name != other.name:
            raise ValueError(f"Corpora names differ: [{self.name}] and [{other.name}].")
        if self is other:
            return self
        docs = list(self.documents) + [d for d in other.documents if d not in self.documents]
        return DocumentCorpus(self.name, docs, meta_data=self.meta_data)

    def __str__(self) -> str:
        return self.name


class Operation:
    """Rally's ``track.Operation(name, operation_type, meta_data=None, params=None, param_source=None)``."""

    def __init__(
        self,
        name: str,
        operation_type: Any,
        meta_data: Mapping[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        param_source: str | None = None,
    ) -> None:
        self.name = name
        self.meta_data = dict(meta_data or {})
        hyphenated = getattr(operation_type, "to_hyphenated_string", None)
        self.type = hyphenated() if callable(hyphenated) else operation_type
        self.params = params if params is not None else {}
        self.param_source = param_source

    @property
    def include_in_reporting(self) -> bool:
        return self.params.get("include-in-reporting", True)

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.name == other.name

    def __str__(self) -> str:
        return self.name


_THROUGHPUT = re.compile(r"(?P<value>(\d*\.)?\d+)\s(?P<unit>\w+/s)")


class Task:
    """Rally's ``track.Task``; ``params`` is the task's spec (``target-throughput``...)."""

    def __init__(
        self,
        name: str,
        operation: Operation,
        tags: Any = None,
        meta_data: Mapping[str, Any] | None = None,
        warmup_iterations: int | None = None,
        iterations: int | None = None,
        warmup_time_period: float | None = None,
        time_period: float | None = None,
        ramp_up_time_period: float | None = None,
        clients: int = 1,
        completes_parent: bool = False,
        any_completes_parent: bool = False,
        schedule: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.operation = operation
        self.tags = [tags] if isinstance(tags, str) else (list(tags) if tags else [])
        self.meta_data = dict(meta_data or {})
        self.warmup_iterations = warmup_iterations
        self.iterations = iterations
        self.warmup_time_period = warmup_time_period
        self.time_period = time_period
        self.ramp_up_time_period = ramp_up_time_period
        self.clients = clients
        self.completes_parent = completes_parent
        self.any_completes_parent = any_completes_parent
        self.schedule = schedule
        self.params = params if params else {}
        self.nested = False

    @property
    def target_throughput(self) -> Any:
        """Rally's reading: ``Throughput(value, unit)`` from ``target-throughput`` or
        ``target-interval`` in ``params``, None when unthrottled."""
        throughput = self.params.get("target-throughput")
        interval = self.params.get("target-interval")
        if throughput is not None and interval is not None:
            raise InvalidSyntax(
                f"Task [{self}] specifies target-interval [{interval}] and target-throughput [{throughput}] "
                f"but only one of them is allowed."
            )
        if interval:
            return RallyThroughput(1.0 / interval, "ops/s")
        if isinstance(throughput, numbers.Number) and not isinstance(throughput, bool):
            return RallyThroughput(float(throughput), "ops/s") if throughput else None
        if isinstance(throughput, str):
            m = _THROUGHPUT.match(throughput)
            if m:
                return RallyThroughput(float(m.group("value")), m.group("unit"))
            raise InvalidSyntax(f"Task [{self}] specifies invalid target throughput [{throughput}].")
        return None

    def matches(self, task_filter: Any) -> bool:
        return task_filter.matches(self)

    def error_behavior(self, default_error_behavior: str) -> str:
        return (
            "continue"
            if self.params.get("ignore-response-error-level") == "non-fatal"
            else default_error_behavior
        )

    def __iter__(self) -> Any:
        return iter([self])

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.name == other.name

    def __str__(self) -> str:
        return self.name


class RallyThroughput(tuple):
    """Rally's ``Throughput`` namedtuple ``(value, unit)``."""

    def __new__(cls, value: float, unit: str) -> RallyThroughput:
        return super().__new__(cls, (value, unit))

    @property
    def value(self) -> float:
        return self[0]

    @property
    def unit(self) -> str:
        return self[1]


class Parallel:
    """Rally's ``track.Parallel(tasks, clients=None)``."""

    def __init__(self, tasks: list[Task], clients: int | None = None) -> None:
        self.tasks = tasks
        self._clients = clients
        self.nested = True

    @property
    def clients(self) -> int:
        return self._clients if self._clients is not None else sum(t.clients for t in self.tasks)

    def matches(self, task_filter: Any) -> bool:
        return any(t.matches(task_filter) for t in self.tasks)

    def remove_task(self, task: Task) -> None:
        self.tasks.remove(task)

    def __iter__(self) -> Any:
        return iter(self.tasks)

    def __str__(self) -> str:
        return f"{len(self.tasks)} parallel tasks"


class Challenge:
    """Rally's ``track.Challenge``."""

    def __init__(
        self,
        name: str,
        description: str | None = None,
        user_info: str | None = None,
        default: bool = False,
        selected: bool = False,
        auto_generated: bool = False,
        parameters: Mapping[str, Any] | None = None,
        meta_data: Mapping[str, Any] | None = None,
        schedule: list[Any] | None = None,
    ) -> None:
        self.name = name
        self.parameters = dict(parameters or {})
        self.meta_data = dict(meta_data or {})
        self.description = description
        self.user_info = user_info
        self.serverless_info: list[str] = []
        self.default = default
        self.selected = selected
        self.auto_generated = auto_generated
        self.schedule = schedule if schedule else []

    def prepend_tasks(self, tasks: list[Any]) -> None:
        self.schedule = tasks + self.schedule

    def remove_task(self, task: Any) -> None:
        self.schedule.remove(task)

    def __str__(self) -> str:
        return self.name


class Track:
    """Rally's ``track.Track``. ``root`` is the track directory (a string, as in Rally)."""

    def __init__(
        self,
        name: str,
        description: str | None = None,
        meta_data: Mapping[str, Any] | None = None,
        challenges: list[Challenge] | None = None,
        indices: list[Index] | None = None,
        data_streams: list[DataStream] | None = None,
        templates: list[IndexTemplate] | None = None,
        composable_templates: list[IndexTemplate] | None = None,
        component_templates: list[ComponentTemplate] | None = None,
        corpora: list[DocumentCorpus] | None = None,
        dependencies: list[str] | None = None,
        has_plugins: bool = False,
        root: str | None = None,
    ) -> None:
        self.name = name
        self.meta_data = dict(meta_data or {})
        self.description = description if description is not None else ""
        self.challenges = challenges if challenges else []
        self.indices = indices if indices else []
        self.data_streams = data_streams if data_streams else []
        self.corpora = corpora if corpora else []
        self.templates = templates if templates else []
        self.composable_templates = composable_templates if composable_templates else []
        self.component_templates = component_templates if component_templates else []
        self.dependencies = dependencies if dependencies else []
        self.has_plugins = has_plugins
        self.root = root

    @property
    def default_challenge(self) -> Challenge | None:
        return next((c for c in self.challenges if c.default), None)

    @property
    def selected_challenge(self) -> Challenge | None:
        return next((c for c in self.challenges if c.selected), None)

    @property
    def selected_challenge_or_default(self) -> Challenge | None:
        return self.selected_challenge or self.default_challenge

    def find_challenge_or_default(self, name: str | None) -> Challenge | None:
        if name:
            return next((c for c in self.challenges if c.name == name), None)
        return self.default_challenge

    @property
    def number_of_documents(self) -> int:
        return sum(
            c.number_of_documents(source_format=Documents.SOURCE_FORMAT_BULK) for c in self.corpora
        )

    def index_names(self) -> list[str]:
        return [i.name for i in self.indices]

    def data_stream_names(self) -> list[str]:
        return [d.name for d in self.data_streams]

    def __str__(self) -> str:
        return self.name


# ------------------------------------------------------------------------------------ conversion


def _documents(docs: model.Documents, files: Mapping[str, str]) -> Documents:
    compressed = archive_suffix(docs.source_file) is not None
    document_file = document_file_name(docs.source_file)
    return Documents(
        source_format=docs.source_format,
        document_file=files.get(docs.source_file, document_file),
        document_archive=docs.source_file if compressed else None,
        base_url=docs.base_url,
        includes_action_and_meta_data=docs.includes_action_and_meta_data,
        number_of_documents=docs.document_count,
        compressed_size_in_bytes=docs.compressed_bytes,
        uncompressed_size_in_bytes=docs.uncompressed_bytes,
        target_index=docs.target_index,
        target_data_stream=docs.target_data_stream,
        target_type=docs.target_type,
        meta_data=docs.meta,
    )


def _operation(op: model.Operation) -> Operation:
    return Operation(
        op.name,
        op.operation_type,
        meta_data=op.meta,
        params=dict(op.params),
        param_source=op.param_source,
    )


def _task(task: model.Task) -> Task:
    view = Task(
        task.name,
        _operation(task.operation),
        tags=list(task.tags),
        meta_data=task.meta,
        warmup_iterations=task.warmup_iterations,
        iterations=task.iterations,
        warmup_time_period=task.warmup_time_period,
        time_period=task.time_period,
        ramp_up_time_period=task.ramp_up_time_period,
        clients=task.clients,
        completes_parent=task.completes_parent,
        any_completes_parent=task.any_completes_parent,
        schedule=task.schedule,
        params=dict(task.params),
    )
    view._esbench_model = task  # type: ignore[attr-defined]
    return view


def to_rally(track: model.Track, *, document_files: Mapping[str, str] | None = None) -> Track:
    """A Rally-shaped, mutable copy of ``track`` (see module doc).

    Args:
        track: the loaded track.
        document_files: absolute paths of prepared document files by their ``source-file``
            (Rally sets absolute paths once the corpora are prepared); others keep their name.
    """
    files = dict(document_files or {})
    challenges = []
    for c in track.challenges:
        schedule: list[Any] = []
        for item in c.schedule:
            if isinstance(item, model.Parallel):
                schedule.append(Parallel([_task(t) for t in item.tasks], clients=item.clients))
            else:
                schedule.append(_task(item))
        challenges.append(
            Challenge(
                c.name,
                description=c.description,
                user_info=c.user_info,
                default=c.default,
                parameters=c.parameters,
                meta_data=c.meta,
                schedule=schedule,
            )
        )
    view = Track(
        track.name,
        description=track.description,
        meta_data=track.meta,
        challenges=challenges,
        indices=[Index(i.name, body=i.body) for i in track.indices],
        data_streams=[DataStream(d.name) for d in track.data_streams],
        templates=[
            IndexTemplate(t.name, t.pattern, t.content, t.delete_matching_indices)
            for t in track.templates
        ],
        composable_templates=[
            IndexTemplate(t.name, t.pattern, t.content, t.delete_matching_indices)
            for t in track.composable_templates
        ],
        component_templates=[ComponentTemplate(t.name, t.content) for t in track.component_templates],
        corpora=[
            DocumentCorpus(c.name, [_documents(d, files) for d in c.documents], meta_data=c.meta)
            for c in track.corpora
        ],
        dependencies=list(track.dependencies),
        has_plugins=True,
        root=str(track.root),
    )
    view._esbench_model = track  # type: ignore[attr-defined]
    return view


def _seconds(value: Any) -> float | None:
    return None if value is None else float(value)


def _task_back(view: Any, where: str) -> model.Task:
    op_view = view.operation
    hyphenated = getattr(op_view.type, "to_hyphenated_string", None)
    op = model.Operation(
        name=str(op_view.name),
        operation_type=str(hyphenated() if callable(hyphenated) else op_view.type),
        params=dict(op_view.params or {}),
        param_source=op_view.param_source,
        include_in_reporting=bool(op_view.include_in_reporting),
        meta=dict(op_view.meta_data or {}),
    )
    params = dict(view.params or {})
    try:
        throttle = view.target_throughput
    except Exception as e:
        raise TrackValidationError(
            f"A track processor left task '{view.name}' ({where}) with {e}"
        ) from e
    target_interval = params.get("target-interval") or None
    target = parse_target_throughput(f"{throttle[0]} {throttle[1]}") if throttle else None
    original = getattr(view, "_esbench_model", None)
    base = (
        original if isinstance(original, model.Task) else model.Task(name=str(view.name), operation=op)
    )
    return replace(
        base,
        name=str(view.name),
        operation=op,
        clients=int(view.clients),
        warmup_iterations=view.warmup_iterations,
        iterations=view.iterations,
        warmup_time_period=_seconds(view.warmup_time_period),
        time_period=_seconds(view.time_period),
        ramp_up_time_period=_seconds(view.ramp_up_time_period),
        schedule=view.schedule,
        target_throughput=target,
        target_interval=float(target_interval) if target_interval else None,
        completes_parent=bool(view.completes_parent),
        any_completes_parent=bool(view.any_completes_parent),
        tags=tuple(view.tags or ()),
        params=params,
        meta=dict(view.meta_data or {}),
    )


def _documents_back(view: Documents, original: model.Documents | None) -> model.Documents:
    named = str(view.document_archive or view.document_file or "")
    # Unchanged names keep the track's source-file (the prepared file may have an absolute path).
    unchanged = original is not None and Path(named).name in (
        original.source_file,
        document_file_name(original.source_file),
    )
    base = original or model.Documents(source_file=named, document_count=0)
    return replace(
        base,
        source_file=base.source_file if unchanged else named,
        base_url=view.base_url,
        source_format=view.source_format,
        document_count=int(view.number_of_documents or 0),
        compressed_bytes=view.compressed_size_in_bytes or None,
        uncompressed_bytes=view.uncompressed_size_in_bytes or None,
        includes_action_and_meta_data=bool(view.includes_action_and_meta_data),
        target_index=view.target_index,
        target_data_stream=view.target_data_stream,
        target_type=view.target_type,
        meta=dict(view.meta_data or {}),
    )


def from_rally(view: Track, original: model.Track) -> model.Track:
    """The frozen model of ``view`` after plugins changed it; fields Rally's objects do not have
    (the track's ``params``, corpus roots) are taken from ``original``.

    Raises:
        TrackValidationError: a processor left a task with an invalid target throughput.
    """
    challenges = []
    for c in view.challenges:
        items: list[model.ScheduleItem] = []
        for item in c.schedule:
            if isinstance(item, Parallel) or getattr(item, "nested", False):
                items.append(
                    model.Parallel(
                        tasks=tuple(_task_back(t, f"challenge '{c.name}'") for t in item.tasks),
                        clients=getattr(item, "_clients", None),
                    )
                )
            else:
                items.append(_task_back(item, f"challenge '{c.name}'"))
        challenges.append(
            model.Challenge(
                name=str(c.name),
                schedule=tuple(items),
                description=c.description or "",
                user_info=c.user_info,
                default=bool(c.default),
                parameters=dict(c.parameters or {}),
                meta=dict(c.meta_data or {}),
            )
        )
    old_corpora = {c.name: c for c in original.corpora}
    corpora = []
    for c in view.corpora:
        old = old_corpora.get(c.name)
        old_docs: dict[str, model.Documents] = {}
        for d in old.documents if old else ():
            old_docs[d.source_file] = d
            old_docs[document_file_name(d.source_file)] = d
        docs = tuple(
            _documents_back(d, old_docs.get(Path(str(d.document_archive or d.document_file or "")).name))
            for d in c.documents
        )
        corpora.append(
            model.DocumentCorpus(
                name=c.name,
                documents=docs,
                root=old.root if old else original.root,
                meta=dict(c.meta_data or {}),
            )
        )

    known = {
        id(group): {t.name: t for t in group}
        for group in (original.templates, original.composable_templates, original.component_templates)
    }

    def templates(
        views: list[Any], group: tuple[model.IndexTemplate, ...]
    ) -> tuple[model.IndexTemplate, ...]:
        out = []
        for t in views:
            # template-path has no Rally attribute: keep it from the template of the same name.
            base = known[id(group)].get(t.name) or model.IndexTemplate(name=t.name, content={})
            out.append(
                replace(
                    base,
                    name=t.name,
                    content=t.content,
                    pattern=getattr(t, "pattern", None),
                    delete_matching_indices=bool(getattr(t, "delete_matching_indices", False)),
                )
            )
        return tuple(out)

    return replace(
        original,
        name=str(view.name),
        description=view.description or "",
        meta=dict(view.meta_data or {}),
        challenges=tuple(challenges),
        indices=tuple(model.Index(name=i.name, body=i.body) for i in view.indices),
        data_streams=tuple(model.DataStream(name=d.name) for d in view.data_streams),
        templates=templates(view.templates, original.templates),
        composable_templates=templates(view.composable_templates, original.composable_templates),
        component_templates=templates(view.component_templates, original.component_templates),
        corpora=tuple(corpora),
        dependencies=tuple(view.dependencies),
    )
