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
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, SupportsFloat, cast

from esbench.compat.rally_exceptions import InvalidSyntax
from esbench.track.values import THROUGHPUT_PATTERN

if TYPE_CHECKING:
    from esbench.track import model


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




class Task:
    """Rally's ``track.Task``; ``params`` is the task's spec (``target-throughput``...)."""

    #: The model task this view was made from (set by :mod:`esbench.compat.trackconvert`).
    _esbench_model: model.Task

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
            return RallyThroughput(float(cast(SupportsFloat, throughput)), "ops/s") if throughput else None
        if isinstance(throughput, str):
            m = THROUGHPUT_PATTERN.match(throughput)
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

    #: The model track this view was made from (set by :mod:`esbench.compat.trackconvert`).
    _esbench_model: model.Track

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


