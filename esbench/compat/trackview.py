"""Rally-shaped, mutable track objects for plugins, and the conversion to and from the model.

Rally hands plugins its own mutable objects (``esrally/track/track.py``: ``Track``, ``Challenge``,
``Parallel``, ``Task``, ``Operation``, ``DocumentCorpus``, ``Documents``, ``Index``,
``DataStream``, ``IndexTemplate``, ``ComponentTemplate``): track processors change them in place
(``on_after_load_track``), param sources and schedulers read them. esbench's model is frozen, so
:func:`to_rally` builds these objects from a :class:`esbench.track.model.Track` and
:func:`from_rally` turns them (after a processor changed them) back into the model. Those two
functions are the only place the two shapes meet.

Attribute names, constructor signatures, defaults, properties and methods (``__eq__``/``__hash__``
and ``__repr__`` included) are Rally 2.13's, so a processor may read and write every attribute
Rally's classes allow; the corpus classes are in :mod:`esbench.compat.corpusview`, the schedule's
(``Operation``, ``Task``, ``Parallel``) in :mod:`esbench.compat.taskview`. Task scheduling fields that
Rally reads from ``task.params`` (``target-throughput``, ``target-interval``) are read from
``params`` again by :func:`from_rally`, so a processor that rewrites them changes the schedule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from esbench.compat.corpusview import DocumentCorpus, Documents, RallyRepr
from esbench.compat.rally_exceptions import InvalidName
from esbench.compat.taskview import Operation, Parallel, RallyThroughput, Task

if TYPE_CHECKING:
    from esbench.track import model


__all__ = [
    "Challenge",
    "ComponentTemplate",
    "DataStream",
    "DocumentCorpus",
    "Documents",
    "Index",
    "IndexTemplate",
    "Operation",
    "Parallel",
    "RallyThroughput",
    "Task",
    "Track",
]


def _name_matches(name: str, pattern: str | None) -> bool:
    # Rally 2.13 (Index.matches, DataStream.matches): no globbing, only these wildcards.
    return pattern is None or pattern in ("_all", "*") or name == pattern


class _Named(RallyRepr):
    """Rally's identity of indices, data streams and templates: equal and hashed by name."""

    name: str

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return self.name == getattr(other, "name", object())

    def __str__(self) -> str:
        return self.name


class Index(_Named):
    """Rally's ``track.Index(name, body=None, types=None)``; ``body`` defaults to ``{}``."""

    def __init__(self, name: str, body: Any = None, types: Any = None) -> None:
        self.name = name
        self.body = body if body is not None else {}
        self.types = types if types is not None else []

    def matches(self, pattern: str | None) -> bool:
        """Rally's rule: None, ``_all`` and ``*`` match every index, else the exact name."""
        return _name_matches(self.name, pattern)


class DataStream(_Named):
    """Rally's ``track.DataStream(name)``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def matches(self, pattern: str | None) -> bool:
        """Rally's rule: None, ``_all`` and ``*`` match every data stream, else the exact name."""
        return _name_matches(self.name, pattern)


class IndexTemplate(_Named):
    """Rally's ``track.IndexTemplate(name, pattern, content, delete_matching_indices=False)``."""

    def __init__(self, name: str, pattern: Any, content: Any, delete_matching_indices: bool = False) -> None:
        self.name = name
        self.pattern = pattern
        self.content = content
        self.delete_matching_indices = delete_matching_indices


class ComponentTemplate(_Named):
    """Rally's ``track.ComponentTemplate(name, content)``."""

    def __init__(self, name: str, content: Any) -> None:
        self.name = name
        self.content = content


class Challenge(RallyRepr):
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

    def _esbench_identity(self) -> tuple[Any, ...]:
        return (
            self.name,
            self.description,
            self.default,
            self.selected,
            self.auto_generated,
            self.parameters,
            self.meta_data,
            self.schedule,
        )

    # Rally hashes dicts and lists here, which raises TypeError: not hashable there either.
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self._esbench_identity() == other._esbench_identity()

    def __str__(self) -> str:
        return self.name


class Track(RallyRepr):
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
        """The default challenge for None or ``""``, else :meth:`find_challenge`.

        Raises:
            InvalidName: no challenge of that name.
        """
        if name in (None, ""):
            return self.default_challenge
        return self.find_challenge(name)

    def find_challenge(self, name: str) -> Challenge:
        """The challenge called ``name``.

        Raises:
            InvalidName: no challenge of that name (Rally's error).
        """
        for challenge in self.challenges:
            if challenge.name == name:
                return challenge
        raise InvalidName(f"Unknown challenge [{name}] for track [{self.name}]")

    # OpenSearch Benchmark's words for the same things (``osbenchmark/workload/workload.py``
    # ``Workload``): a workload processor reads ``test_procedures``.

    @property
    def test_procedures(self) -> list[Challenge]:
        """OSB's name of :attr:`challenges` (the same list)."""
        return self.challenges

    @test_procedures.setter
    def test_procedures(self, value: list[Challenge]) -> None:
        self.challenges = value

    @property
    def default_test_procedure(self) -> Challenge | None:
        """OSB's name of :attr:`default_challenge`."""
        return self.default_challenge

    @property
    def selected_test_procedure(self) -> Challenge | None:
        """OSB's name of :attr:`selected_challenge`."""
        return self.selected_challenge

    @property
    def selected_test_procedure_or_default(self) -> Challenge | None:
        """OSB's name of :attr:`selected_challenge_or_default`."""
        return self.selected_challenge_or_default

    def find_test_procedure_or_default(self, name: str | None) -> Challenge | None:
        """OSB's name of :meth:`find_challenge_or_default`."""
        return self.find_challenge_or_default(name)

    @property
    def number_of_documents(self) -> int:
        return sum(c.number_of_documents(source_format=Documents.SOURCE_FORMAT_BULK) for c in self.corpora)

    def _esbench_bulk_size(self, size: Any) -> int | None:
        # Rally's rule: unknown (None) as soon as one corpus does not know its size.
        total = 0
        for corpus in self.corpora:
            value = size(corpus)
            if value is None:
                return None
            total += value
        return total

    @property
    def compressed_size_in_bytes(self) -> int | None:
        """Bytes of the corpora's compressed bulk files; None if one is unknown."""
        return self._esbench_bulk_size(lambda c: c.compressed_size_in_bytes(Documents.SOURCE_FORMAT_BULK))

    @property
    def uncompressed_size_in_bytes(self) -> int | None:
        """Bytes of the corpora's uncompressed bulk files; None if one is unknown."""
        return self._esbench_bulk_size(lambda c: c.uncompressed_size_in_bytes(Documents.SOURCE_FORMAT_BULK))

    def index_names(self) -> list[str]:
        return [i.name for i in self.indices]

    def data_stream_names(self) -> list[str]:
        return [d.name for d in self.data_streams]

    def __str__(self) -> str:
        return self.name

    def _esbench_identity(self) -> tuple[Any, ...]:
        return (
            self.name,
            self.meta_data,
            self.description,
            self.challenges,
            self.indices,
            self.data_streams,
            self.templates,
            self.composable_templates,
            self.component_templates,
            self.corpora,
        )

    # Rally hashes dicts and lists here, which raises TypeError: not hashable there either.
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self._esbench_identity() == other._esbench_identity()
