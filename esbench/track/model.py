"""The immutable track model: what a loaded, rendered and validated track *is*.

Produced by :func:`esbench.track.loader.load_track`, consumed by the driver. Field names follow
Rally's track format (https://esrally.readthedocs.io/en/stable/track.html) with hyphens turned into
underscores. Mappings inside the model (index bodies, operation params) are plain dicts so that the
model pickles into worker processes; treat them as read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from esbench.track.dialect import Dialect


class BuildFlavor(StrEnum):
    """Values of the template global ``build_flavor`` (Rally's ``--build-flavor``)."""

    DEFAULT = "default"
    SERVERLESS = "serverless"


@dataclass(frozen=True, slots=True, kw_only=True)
class Index:
    """An index the track creates (``indices[]``).

    Attributes:
        name: index name.
        body: rendered index body (``settings``/``mappings``/``aliases``), or None if the track gives no body.
    """

    name: str
    body: Mapping[str, object] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DataStream:
    """A data stream the track creates (``data-streams[]``)."""

    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexTemplate:
    """A template: legacy (``templates[]``), composable or component.

    Attributes:
        name: template name.
        pattern: ``index-pattern`` (legacy/composable; None for component templates).
        content: the rendered template body.
        delete_matching_indices: delete indices matching ``pattern`` before creating it.
        template_path: ``template-path`` — a JSON path into the file where the template body sits.
    """

    name: str
    content: Mapping[str, object]
    pattern: str | None = None
    delete_matching_indices: bool = False
    template_path: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Documents:
    """One document file of a corpus (``corpora[].documents[]``).

    Attributes:
        source_file: file name as written in the track (may be compressed: ``.bz2``, ``.gz``, ``.zst``...).
        base_url: where to download ``source_file`` from, if not present locally.
        source_format: ``"bulk"`` (NDJSON bulk documents); in an OpenSearch Benchmark workload also
            ``"hdf5"`` or ``"big-ann"`` (vector data sets, read only by OSB's vector operations; the
            corpus stage prepares bulk files only).
        document_count: number of documents in the file (not lines: with action-and-meta-data lines
            the file has twice as many lines).
        compressed_bytes: size of the compressed file in bytes, if known.
        uncompressed_bytes: size of the uncompressed file in bytes, if known.
        includes_action_and_meta_data: True if every document line is preceded by its bulk action line.
        target_index: the index bulk requests write into (None with ``target_data_stream``).
        target_data_stream: the data stream bulk requests write into.
        target_type: legacy mapping type (only for pre-7 clusters).
        meta: free-form metadata.
    """

    source_file: str
    document_count: int
    base_url: str | None = None
    source_format: str = "bulk"
    compressed_bytes: int | None = None
    uncompressed_bytes: int | None = None
    includes_action_and_meta_data: bool = False
    target_index: str | None = None
    target_data_stream: str | None = None
    target_type: str | None = None
    meta: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentCorpus:
    """A named corpus (``corpora[]``): one or more document files.

    Attributes:
        name: corpus name (``--test-mode`` replaces each file with its ``-1k`` variant).
        documents: the files, in track order.
        root: directory where the track expects the (decompressed) files; the corpus layer may
            resolve them to a cache under the esbench home instead.
        meta: free-form metadata.
    """

    name: str
    documents: tuple[Documents, ...]
    root: Path | None = None
    meta: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation:
    """An operation (``operations[]`` or inline in a task).

    Attributes:
        name: operation name (defaults to ``operation_type`` for inline operations).
        operation_type: Rally's hyphenated type name (``"bulk"``, ``"search"``, ...) or a plugin's.
        params: every other key of the operation, hyphenated as in the track
            (``{"bulk-size": 5000, "body": {...}}``).
        param_source: name of a registered param source (``param-source``), if any.
        include_in_reporting: whether the summary report shows this operation's task.
            Rally's default: False for administrative operations, True otherwise.
        meta: free-form metadata.
    """

    name: str
    operation_type: str
    # Rally's dict-shaped operation params: runners and param sources (plugins too) read them by
    # key as whatever JSON the track gave, so they stay untyped.
    params: Mapping[str, Any] = field(default_factory=dict)
    param_source: str | None = None
    include_in_reporting: bool = True
    meta: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Throughput:
    """A target throughput with its unit, e.g. ``Throughput(value=500.0, unit="docs/s")``.

    ``unit`` is ``"ops/s"`` when the track gives a bare number. Units other than ops/s divide the
    per-client rate by the request weight (Rally: ``target-throughput`` docs).
    """

    value: float
    unit: str = "ops/s"

    @classmethod
    def every(cls, interval_s: float) -> Throughput:
        """The throughput of a ``target-interval`` of ``interval_s`` seconds (> 0): ``1 / interval_s``
        ops/s over all clients (Rally's track docs: "This is just 1 / target-throughput (in seconds)")."""
        return cls(value=1.0 / interval_s, unit="ops/s")


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """A task of a challenge's schedule: an operation run by ``clients`` clients.

    Scheduling fields mirror Rally's task properties; None means "not given". Iteration counts are
    per client. Times are in seconds.

    Attributes:
        name: unique name within the challenge (defaults to the operation name).
        operation: the operation the clients run.
        clients: number of clients (>= 1).
        warmup_iterations / iterations: per-client iteration counts.
        warmup_time_period / time_period / ramp_up_time_period: seconds.
        schedule: scheduler name (``"deterministic"``, ``"poisson"``, a plugin's), None = default.
        target_throughput: overall target over all clients, or None (unthrottled closed loop).
        target_interval: ``target-interval`` in seconds; Rally treats it as
            ``target-throughput = 1 / interval`` over all clients (the loader sets both fields).
        completes_parent: in a ``parallel`` block, this task ending ends the whole block.
        any_completes_parent: ``completed-by: any`` — the first task to finish ends the block.
        tags: task tags, for ``--include-tasks=tag:...``.
        params: the raw task spec from the track (schedulers and param sources may read it).
        meta: free-form metadata.
    """

    name: str
    operation: Operation
    clients: int = 1
    warmup_iterations: int | None = None
    iterations: int | None = None
    warmup_time_period: float | None = None
    time_period: float | None = None
    ramp_up_time_period: float | None = None
    schedule: str | None = None
    target_throughput: Throughput | None = None
    target_interval: float | None = None
    completes_parent: bool = False
    any_completes_parent: bool = False
    tags: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    meta: Mapping[str, object] = field(default_factory=dict)

    @property
    def throttled(self) -> bool:
        """True when the task has a target throughput or target interval."""
        return self.target_throughput is not None or self.target_interval is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class Parallel:
    """A ``parallel`` block: tasks that start together and end at one join point.

    Attributes:
        tasks: the tasks of the block.
        clients: the ``parallel`` element's own ``clients`` (Rally: at most this many clients run the
            block's tasks), or None to use the sum of the tasks' clients.
    """

    tasks: tuple[Task, ...]
    clients: int | None = None

    @property
    def name(self) -> str:
        """A display name: ``parallel(a, b, ...)``."""
        return "parallel(" + ", ".join(t.name for t in self.tasks) + ")"


ScheduleItem = Task | Parallel


@dataclass(frozen=True, slots=True, kw_only=True)
class Challenge:
    """A named scenario: the ordered schedule of tasks.

    Attributes:
        name: challenge name.
        description: free text.
        user_info: text printed to the user before the race.
        default: True for the track's default challenge.
        schedule: tasks and parallel blocks, in order; each item ends in a join point.
        parameters: challenge ``parameters`` (exposed to templates in Rally).
        meta: free-form metadata.
        auto_generated: True for the ``default`` challenge made from a track's top-level
            ``schedule`` (Rally's ``Challenge.auto_generated``; ``list tracks`` then leaves out the
            challenge columns when every track has one).
    """

    name: str
    schedule: tuple[ScheduleItem, ...]
    description: str = ""
    user_info: str | None = None
    default: bool = False
    parameters: Mapping[str, object] = field(default_factory=dict)
    meta: Mapping[str, object] = field(default_factory=dict)
    auto_generated: bool = False

    def tasks(self) -> tuple[Task, ...]:
        """All tasks in schedule order, parallel blocks flattened."""
        out: list[Task] = []
        for item in self.schedule:
            out.extend(item.tasks if isinstance(item, Parallel) else (item,))
        return tuple(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class Track:
    """A loaded track.

    Attributes:
        name: track name (directory name of the track, like Rally).
        root: the track directory (for relative corpus paths, plugins).
        description: free text.
        meta: free-form metadata.
        indices / data_streams / templates / composable_templates / component_templates: what the
            track creates.
        corpora: document corpora.
        challenges: all challenges; exactly one has ``default=True``.
        dependencies: pip requirement specs the track's plugins need.
        params: the effective track params (``--track-params``) the track was rendered with.
        dialect: whose definition it was read from: Rally's ``track.json`` or OSB's ``workload.json``
            (OSB's load driver bounds each operation by the client timeout, see
            :class:`esbench.driver.worker.taskrun.TaskRun`).
        fingerprint: digest of the rendered track, its params and its files
            (:func:`esbench.track.fingerprint.track_fingerprint`); "" for tracks built in memory.
    """

    name: str
    root: Path
    challenges: tuple[Challenge, ...]
    description: str = ""
    meta: Mapping[str, object] = field(default_factory=dict)
    indices: tuple[Index, ...] = ()
    data_streams: tuple[DataStream, ...] = ()
    templates: tuple[IndexTemplate, ...] = ()
    composable_templates: tuple[IndexTemplate, ...] = ()
    component_templates: tuple[IndexTemplate, ...] = ()
    corpora: tuple[DocumentCorpus, ...] = ()
    dependencies: tuple[str, ...] = ()
    params: Mapping[str, object] = field(default_factory=dict)
    dialect: Dialect = Dialect.RALLY
    fingerprint: str = ""

    @property
    def default_challenge(self) -> Challenge:
        """The challenge marked default (the loader guarantees there is exactly one)."""
        for challenge in self.challenges:
            if challenge.default:
                return challenge
        return self.challenges[0]

    def find_challenge(self, name: str | None) -> Challenge:
        """The challenge called ``name``, or the default one if ``name`` is None.

        Raises:
            esbench.exceptions.NotFound: no challenge of that name; the message lists the names.
        """
        if name is None:
            return self.default_challenge
        for challenge in self.challenges:
            if challenge.name == name:
                return challenge
        from esbench.exceptions import NotFound

        names = ", ".join(c.name for c in self.challenges)
        raise NotFound(
            f"Track '{self.name}' has no challenge '{name}'. Its challenges are: {names}. "
            f"Use --challenge with one of them (or omit it for the default)."
        )
