"""Build the immutable track model from a rendered, schema-valid track document.

The rules follow Rally's ``TrackSpecificationReader`` (``esrally/track/loader.py``, esrally 2.13):

* corpora: corpus-level ``base-url``, ``source-format``, ``includes-action-and-meta-data``,
  ``target-index``/``target-data-stream``/``target-type`` are defaults for its documents;
  ``target-index`` defaults to the only index (``target-data-stream`` to the only data stream);
  documents with action-and-meta-data lines have no target;
* exactly one of ``challenges``, ``challenge``, ``schedule`` (the latter makes a challenge called
  ``default``); with several challenges exactly one has ``"default": true``;
* a task's operation is the named operation from ``operations``, else (a bare string) an
  operation whose name and type are that string, else an inline operation whose name defaults to
  its ``operation-type``; a task's name defaults to its operation's name and is unique in the
  challenge;
* ``parallel`` gives its ``warmup-iterations``, ``iterations``, ``warmup-time-period``,
  ``time-period`` and ``ramp-up-time-period`` to its tasks as defaults; ``completed-by`` names one
  task or ``any``; ``ramp-up-time-period`` only on the ``parallel`` element;
* warmup iterations with a time period, or a warmup time period with iterations, is an error
  (Rally's two rules; iterations with a time period load, and the task runs time-based);
  ``ramp-up-time-period`` needs a ``warmup-time-period`` at least as long;
* ``include-in-reporting`` defaults to False for administrative operation types
  (:mod:`esbench.track.optypes`).

esbench additionally rejects a bare operation name that is neither defined in ``operations`` nor a
built-in operation type (unless the track has a ``track.py`` plugin, which may register it).
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from esbench.exceptions import TrackValidationError
from esbench.track import optypes
from esbench.track.dialect import RALLY, DialectSpec
from esbench.track.model import (
    DataStream,
    Index,
    IndexTemplate,
    Operation,
    Task,
    Throughput,
    Track,
)
from esbench.track.reader_corpora import CorporaReader
from esbench.track.reader_schedule import ScheduleReader
from esbench.track.schema import json_path
from esbench.track.values import (
    FragmentLoader,
    Path_,
    as_seconds,
    parse_target_throughput,
)


class TrackReader(CorporaReader, ScheduleReader):
    """Turns one rendered track document into a :class:`~esbench.track.model.Track`.

    Args:
        name: the track name.
        root: the track directory.
        track_file: the track file (for messages).
        load_fragment: renders and parses an index body / template file given by its path relative
            to the track directory and a description for messages.
        has_plugins: the track has a ``track.py`` plugin (bare operation names may be plugin types).
        params: the effective track params (stored on the model).
        dialect: whose words the track is written in: the corpus ``source-format`` values it
            accepts (:attr:`~esbench.track.dialect.DialectSpec.source_formats`) and the model's
            :attr:`~esbench.track.model.Track.dialect`.
    """

    def __init__(
        self,
        *,
        name: str,
        root: Path,
        track_file: Path,
        load_fragment: FragmentLoader,
        has_plugins: bool = False,
        params: Mapping[str, Any] | None = None,
        dialect: DialectSpec = RALLY,
    ) -> None:
        self.name = name
        self.root = root
        self.track_file = track_file
        self.load_fragment = load_fragment
        self.has_plugins = has_plugins
        self.params = dict(params or {})
        self.dialect = dialect
        self.source_formats = dialect.source_formats

    # -- errors ---------------------------------------------------------------------------------

    def _error(self, path: Sequence[Any], message: str, fix: str) -> TrackValidationError:
        return TrackValidationError(
            f"Track '{self.name}' ('{self.track_file}') is invalid at {json_path(path)}: {message}. {fix}"
        )

    # -- top level ------------------------------------------------------------------------------

    def precheck(self, spec: Any) -> None:
        """Structural checks whose schema error would be cryptic (run before schema validation).

        Raises:
            TrackValidationError: a ``parallel`` element nested in another one.
        """
        if not isinstance(spec, Mapping):
            return
        schedules: list[tuple[Any, Path_]] = [(spec.get("schedule"), ("schedule",))]
        challenge = spec.get("challenge")
        if isinstance(challenge, Mapping):
            schedules.append((challenge.get("schedule"), ("challenge", "schedule")))
        challenges = spec.get("challenges")
        if isinstance(challenges, list):
            schedules += [
                (c.get("schedule"), ("challenges", i, "schedule"))
                for i, c in enumerate(challenges)
                if isinstance(c, Mapping)
            ]
        for items, path in schedules:
            for i, item in enumerate(items if isinstance(items, list) else []):
                parallel = item.get("parallel") if isinstance(item, Mapping) else None
                tasks = parallel.get("tasks") if isinstance(parallel, Mapping) else None
                for j, task in enumerate(tasks if isinstance(tasks, list) else []):
                    if isinstance(task, Mapping) and "parallel" in task:
                        raise self._error(
                            [*path, i, "parallel", "tasks", j, "parallel"],
                            "'parallel' elements cannot be nested",
                            "Flatten the inner parallel block into the outer one.",
                        )

    def read(self, spec: Mapping[str, Any]) -> Track:
        """Build the track model from the rendered document ``spec``.

        Raises:
            TrackValidationError: a rule of the track format is violated (message with JSON path).
            TrackSyntaxError: an index body or template file is not valid Jinja/JSON.
        """
        indices = tuple(self._index(spec, i) for i in range(len(spec.get("indices", []))))
        data_streams = tuple(DataStream(name=ds["name"]) for ds in spec.get("data-streams", []))
        if indices and data_streams:
            raise self._error(
                ["data-streams"],
                "'indices' and 'data-streams' cannot both be given",
                "Keep only one of them; a track benchmarks either indices or data streams.",
            )
        templates = tuple(
            self._template(t, ["templates", i], kind="index template")
            for i, t in enumerate(spec.get("templates", []))
        )
        composable = tuple(
            self._template(t, ["composable-templates", i], kind="composable template")
            for i, t in enumerate(spec.get("composable-templates", []))
        )
        component = tuple(
            self._template(t, ["component-templates", i], kind="component template")
            for i, t in enumerate(spec.get("component-templates", []))
        )
        corpora = self._corpora(spec.get("corpora", []), spec, indices, data_streams)
        challenges = self._challenges(spec)
        return Track(
            name=self.name,
            root=self.root,
            description=spec.get("description", "") or "",
            meta=dict(spec.get("meta") or {}),
            indices=indices,
            data_streams=data_streams,
            templates=templates,
            composable_templates=composable,
            component_templates=component,
            corpora=corpora,
            challenges=challenges,
            dependencies=tuple(spec.get("dependencies") or ()),
            params=self.params,
            dialect=self.dialect.dialect,
        )

    def _index(self, spec: Mapping[str, Any], i: int) -> Index:
        index_spec = spec["indices"][i]
        name = index_spec["name"]
        body_file = index_spec.get("body")
        body = self.load_fragment(body_file, f"the body of index '{name}'") if body_file else None
        if body is not None and not isinstance(body, dict):
            raise self._error(
                ["indices", i, "body"],
                f"the body file '{body_file}' of index '{name}' renders to a {type(body).__name__}, not a "
                "JSON object",
                "An index body is an object with 'settings', 'mappings' and/or 'aliases'.",
            )
        return Index(name=name, body=body)

    def _template(self, spec: Mapping[str, Any], path: list[Any], *, kind: str) -> IndexTemplate:
        name = spec["name"]
        content = self.load_fragment(spec["template"], f"the {kind} '{name}'")
        template_path = spec.get("template-path")
        if template_path:
            # Rally walks the dot-separated path into the file and keeps only that part.
            for key in template_path.split("."):
                if not isinstance(content, dict) or key not in content:
                    raise self._error(
                        [*path, "template-path"],
                        f"the {kind} file '{spec['template']}' has nothing at template-path "
                        f"'{template_path}' "
                        f"(no key '{key}')",
                        "Fix template-path (dot-separated keys into the file) or the file.",
                    )
                content = content[key]
        if not isinstance(content, dict):
            raise self._error(
                [*path, "template"],
                f"the {kind} '{name}' is a {type(content).__name__}, not a JSON object",
                "A template file holds a JSON object (or give template-path to the object inside it).",
            )
        return IndexTemplate(
            name=name,
            content=content,
            pattern=spec.get("index-pattern"),
            # Rally's default is true for legacy and composable templates.
            delete_matching_indices=bool(spec.get("delete-matching-indices", True))
            if "index-pattern" in spec
            else False,
            template_path=template_path,
        )

    def _resolve_operation(self, ref: Any, ops: Mapping[str, Operation], path: Path_) -> Operation:
        if isinstance(ref, str):
            if ref in ops:
                return ops[ref]
            if not optypes.is_builtin(ref) and not self.has_plugins:
                candidates = sorted(set(ops) | optypes.BUILTIN_TYPES)
                close = difflib.get_close_matches(ref, candidates, n=3)
                hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
                defined = ", ".join(ops) if ops else "(none)"
                raise self._error(
                    [*path, "operation"],
                    f"the task refers to the operation '{ref}', which is neither defined in 'operations' nor "
                    "a "
                    f"built-in operation type.{hint} Defined operations: {defined}",
                    "Fix the name, or define the operation in 'operations'.",
                )
            params: dict[str, Any] = {}
            if optypes.is_builtin(ref):
                params["include-in-reporting"] = not optypes.is_admin(ref)
            return Operation(
                name=ref,
                operation_type=ref,
                params=params,
                include_in_reporting=params.get("include-in-reporting", True),
            )
        return self._operation(ref, (*path, "operation"))

    def _operation(self, spec: Mapping[str, Any], path: Path_) -> Operation:
        op_type = spec["operation-type"]
        params = copy.deepcopy(dict(spec))
        if optypes.is_builtin(op_type) and "include-in-reporting" not in params:
            params["include-in-reporting"] = not optypes.is_admin(op_type)
        return Operation(
            name=spec.get("name", op_type),
            operation_type=op_type,
            params=params,
            param_source=spec.get("param-source"),
            include_in_reporting=bool(params.get("include-in-reporting", True)),
            meta=dict(spec.get("meta") or {}),
        )

    def _operations(self, specs: Sequence[Mapping[str, Any]]) -> dict[str, Operation]:
        ops: dict[str, Operation] = {}
        for i, spec in enumerate(specs):
            op = self._operation(spec, ("operations", i))
            if op.name in ops:
                raise self._error(
                    ["operations", i, "name"],
                    f"duplicate operation name '{op.name}'",
                    "Give every operation a unique name.",
                )
            ops[op.name] = op
        return ops

    def _task(
        self,
        spec: Mapping[str, Any],
        ops: Mapping[str, Operation],
        challenge: str,
        path: Path_,
        *,
        defaults: Mapping[str, Any] | None = None,
        completed_by: str | None = None,
    ) -> Task:
        defaults = defaults or {}
        op = self._resolve_operation(spec["operation"], ops, path)
        name = spec.get("name", op.name)

        def value(key: str) -> Any:
            return spec.get(key, defaults.get(key))

        warmup_iterations = value("warmup-iterations")
        iterations = value("iterations")
        warmup_time = value("warmup-time-period")
        time_period = value("time-period")
        ramp_up = value("ramp-up-time-period")
        where = f"task '{name}' of challenge '{challenge}'"
        self._check_periods(path, where, warmup_iterations, iterations, warmup_time, time_period, ramp_up)
        throughput, interval = self._target(spec, path, where)
        tags = spec.get("tags")
        if isinstance(tags, str):
            tags = [tags]
        return Task(
            name=name,
            operation=op,
            clients=spec.get("clients", 1),
            warmup_iterations=warmup_iterations,
            iterations=iterations,
            warmup_time_period=as_seconds(warmup_time),
            time_period=as_seconds(time_period),
            ramp_up_time_period=as_seconds(ramp_up),
            schedule=spec.get("schedule"),
            target_throughput=throughput,
            target_interval=interval,
            completes_parent=completed_by is not None and name == completed_by,
            any_completes_parent=completed_by == "any",
            tags=tuple(tags or ()),
            params=copy.deepcopy(dict(spec)),
            meta=dict(spec.get("meta") or {}),
        )

    def _check_periods(
        self,
        path: Path_,
        where: str,
        warmup_iterations: int | None,
        iterations: int | None,
        warmup_time: float | None,
        time_period: float | None,
        ramp_up: float | None,
    ) -> None:
        """Rally 2.13's rules for a task's iterations, time periods and ramp-up
        (``esrally/track/loader.py``, ``TaskSpecificationParser.parse_task``): warmup iterations with a
        time period, or a warmup time period with iterations, is an error; iterations with a time
        period (or warmup iterations with a warmup time period) load, and the task is time-based, as
        Rally runs it (:mod:`esbench.driver.worker.looplimits`); ramp-up only without iterations and
        with a warmup time period at least as long."""
        if warmup_iterations is not None and time_period is not None:
            raise self._error(
                path,
                f"{where} defines {warmup_iterations} warmup iterations and a time period of "
                f"{time_period} s, and Rally does not mix time periods and iterations",
                "Use warmup-time-period with time-period, or warmup-iterations with iterations.",
            )
        if warmup_time is not None and iterations is not None:
            raise self._error(
                path,
                f"{where} defines a warmup time period of {warmup_time} s and {iterations} iterations, "
                "and Rally does not mix time periods and iterations",
                "Use warmup-time-period with time-period, or warmup-iterations with iterations.",
            )
        if ramp_up is not None:
            if warmup_iterations is not None or iterations is not None:
                raise self._error(
                    path,
                    f"{where} combines ramp-up-time-period with iterations",
                    "Ramp-up needs time periods: use warmup-time-period/time-period instead of iterations.",
                )
            if warmup_time is None:
                raise self._error(
                    path,
                    f"{where} has a ramp-up-time-period of {ramp_up} s but no warmup-time-period",
                    f"Add a warmup-time-period of at least {ramp_up} s.",
                )
            if warmup_time < ramp_up:
                raise self._error(
                    path,
                    f"{where} has a warmup-time-period of {warmup_time} s, shorter than its "
                    "ramp-up-time-period of "
                    f"{ramp_up} s",
                    "Make warmup-time-period greater than or equal to ramp-up-time-period.",
                )

    def _target(
        self, spec: Mapping[str, Any], path: Path_, where: str
    ) -> tuple[Throughput | None, float | None]:
        """The task's target throughput (``target-throughput``, or ``target-interval`` as its
        inverse) and its ``target-interval`` in seconds (None unless given and not 0: Rally ignores a
        target-interval of 0, unthrottled, like a target-throughput of 0)."""
        throughput_spec = spec.get("target-throughput")
        interval_spec = spec.get("target-interval")
        if throughput_spec is not None and interval_spec is not None:
            raise self._error(
                path,
                f"{where} gives both target-throughput and target-interval",
                "Keep only one of them (target-interval is the inverse of target-throughput).",
            )
        try:
            throughput = parse_target_throughput(throughput_spec)
        except ValueError as e:
            raise self._error([*path, "target-throughput"], f"{where}: {e}", "Fix target-throughput.") from e
        if interval_spec:
            throughput = Throughput.every(float(interval_spec))
        return throughput, (float(interval_spec) if interval_spec else None)
