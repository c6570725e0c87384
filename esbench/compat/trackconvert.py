"""Conversion between esbench's frozen track model and the Rally-shaped views of
:mod:`esbench.compat.trackview`: :func:`to_rally` before track processors run, :func:`from_rally`
after them, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from esbench.compat.trackview import (
    Challenge,
    ComponentTemplate,
    DataStream,
    DocumentCorpus,
    Documents,
    Index,
    IndexTemplate,
    Operation,
    Parallel,
    Task,
    Track,
)
from esbench.corpus.names import archive_suffix, document_file_name
from esbench.exceptions import TrackValidationError
from esbench.track import model
from esbench.track.values import as_seconds, parse_target_throughput

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
        meta_data=dict(docs.meta or {}),
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
    view._esbench_model = task
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
                auto_generated=c.auto_generated,
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
            IndexTemplate(t.name, t.pattern, t.content, t.delete_matching_indices) for t in track.templates
        ],
        composable_templates=[
            IndexTemplate(t.name, t.pattern, t.content, t.delete_matching_indices)
            for t in track.composable_templates
        ],
        component_templates=[ComponentTemplate(t.name, t.content) for t in track.component_templates],
        corpora=[
            DocumentCorpus(c.name, [_documents(d, files) for d in c.documents], meta_data=dict(c.meta or {}))
            for c in track.corpora
        ],
        dependencies=list(track.dependencies),
        has_plugins=True,
        root=str(track.root),
    )
    view._esbench_model = track
    return view


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
        raise TrackValidationError(f"A track processor left task '{view.name}' ({where}) with {e}") from e
    target_interval = params.get("target-interval") or None
    target = parse_target_throughput(f"{throttle[0]} {throttle[1]}") if throttle else None
    original = getattr(view, "_esbench_model", None)
    base = original if isinstance(original, model.Task) else model.Task(name=str(view.name), operation=op)
    return replace(
        base,
        name=str(view.name),
        operation=op,
        clients=int(view.clients),
        warmup_iterations=view.warmup_iterations,
        iterations=view.iterations,
        warmup_time_period=as_seconds(view.warmup_time_period),
        time_period=as_seconds(view.time_period),
        ramp_up_time_period=as_seconds(view.ramp_up_time_period),
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
    return replace(
        original,
        name=str(view.name),
        description=view.description or "",
        meta=dict(view.meta_data or {}),
        challenges=tuple(_challenge_back(c) for c in view.challenges),
        # Rally's Index makes a missing body {}; the model keeps "no body" as None.
        indices=tuple(model.Index(name=i.name, body=i.body or None) for i in view.indices),
        data_streams=tuple(model.DataStream(name=d.name) for d in view.data_streams),
        templates=_templates_back(view.templates, original.templates),
        composable_templates=_templates_back(view.composable_templates, original.composable_templates),
        component_templates=_templates_back(view.component_templates, original.component_templates),
        corpora=_corpora_back(view.corpora, original),
        dependencies=tuple(view.dependencies),
    )


def _challenge_back(c: Any) -> model.Challenge:
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
    return model.Challenge(
        name=str(c.name),
        schedule=tuple(items),
        description=c.description or "",
        user_info=c.user_info,
        default=bool(c.default),
        parameters=dict(c.parameters or {}),
        meta=dict(c.meta_data or {}),
        auto_generated=bool(c.auto_generated),
    )


def _corpora_back(views: list[Any], original: model.Track) -> tuple[model.DocumentCorpus, ...]:
    old_corpora = {c.name: c for c in original.corpora}
    corpora = []
    for corpus in views:
        old = old_corpora.get(corpus.name)
        old_docs: dict[str, model.Documents] = {}
        for d in old.documents if old else ():
            old_docs[d.source_file] = d
            old_docs[document_file_name(d.source_file)] = d
        docs = tuple(
            _documents_back(d, old_docs.get(Path(str(d.document_archive or d.document_file or "")).name))
            for d in corpus.documents
        )
        corpora.append(
            model.DocumentCorpus(
                name=corpus.name,
                documents=docs,
                root=old.root if old else original.root,
                meta=dict(corpus.meta_data or {}),
            )
        )
    return tuple(corpora)


def _templates_back(
    views: list[Any], known: tuple[model.IndexTemplate, ...]
) -> tuple[model.IndexTemplate, ...]:
    by_name = {t.name: t for t in known}
    out = []
    for t in views:
        # template-path has no Rally attribute: keep it from the template of the same name.
        base = by_name.get(t.name) or model.IndexTemplate(name=t.name, content={})
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
