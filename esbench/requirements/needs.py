"""What a track needs from a cluster, found by reading the track (no cluster involved).

The analysis walks the tasks that will run and the definitions they create:

* ``put-pipeline`` bodies (and ``raw-request`` PUTs to ``_ingest/pipeline``): every processor type,
  nested ``foreach``/``on_failure`` processors, the ``script`` processor's language and every
  processor's ``if`` condition (a painless script);
* scripts anywhere in operation params and mappings (``script``, ``init_script``...,
  ``runtime_mappings``/``runtime`` fields), by language (``lang``, default painless);
* index bodies of ``create-index`` tasks and template bodies of ``create-*-template`` tasks:
  analyzers, tokenizers, token filters and char filters, referenced by name from mappings or
  custom analyzers, or defined by ``type`` in ``settings.analysis``; field types of
  ``mapper-extras``/``parent-join``/``percolator``; ``index.lifecycle.name``; data stream
  ``lifecycle`` in templates;
* operation types served by a module (data streams, ILM, ML, transforms, SQL, ES|QL), and
  ``raw-request`` paths of the same APIs.

Which module provides what is in :mod:`esbench.requirements.catalog`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from esbench.requirements.catalog import (
    DEFAULT_SCRIPT_LANG,
    FIELD_TYPE_MODULES,
    INGEST_PROCESSOR_MODULES,
    OPERATION_MODULES,
    PATH_MODULES,
    SCRIPT_LANG_MODULES,
    SETTING_MODULES,
    Kind,
    analysis_provider,
)
from esbench.track.model import Challenge, IndexTemplate, Task, Track

#: Module name used for an ingest processor no known module provides (a third-party plugin).
UNKNOWN_MODULE = "(a plugin)"

_SCRIPT_KEYS = frozenset({"script", "init_script", "map_script", "combine_script", "reduce_script"})
# Field-level queries whose field could be called "script" ({"term": {"script": "x"}}): a string
# under such a key is a field value, not a script.
_FIELD_QUERIES = frozenset(
    {
        "term",
        "terms",
        "match",
        "match_phrase",
        "match_phrase_prefix",
        "prefix",
        "wildcard",
        "regexp",
        "fuzzy",
        "range",
        "exists",
        "match_bool_prefix",
        "intervals",
        "span_term",
    }
)
_TEMPLATE_OPERATIONS = {
    "create-index-template": ("templates", "index template"),
    "create-composable-template": ("composable_templates", "composable template"),
    "create-component-template": ("component_templates", "component template"),
}
_ANALYZER_REFERENCES = ("analyzer", "search_analyzer", "search_quote_analyzer")


@dataclass(frozen=True, slots=True, kw_only=True)
class Need:
    """One thing the track uses that a module provides.

    Attributes:
        module: the module (or plugin) name as ``GET _nodes/plugins`` reports it, e.g.
            ``"ingest-common"``; :data:`UNKNOWN_MODULE` for an ingest processor no known module has.
        feature: what is used, e.g. ``"ingest processor 'grok'"``, ``"painless script"``,
            ``"analyzer 'english'"``.
        where: who uses it, e.g. ``"task 'put-pipeline'"``, ``"index 'logs'"``,
            ``"composable template 'logs'"``.
        processor: the ingest processor type when this need is a processor (checked against the
            cluster's own processor list, which is more exact than the module), else None.
    """

    module: str
    feature: str
    where: str
    processor: str | None = None


def track_needs(
    track: Track, *, challenge: Challenge | None = None, tasks: Sequence[Task] | None = None
) -> tuple[Need, ...]:
    """Everything the given tasks of ``track`` need from modules, in schedule order, without duplicates.

    Args:
        track: the loaded track.
        challenge: analyse this challenge's tasks (default: every challenge of the track).
        tasks: analyse exactly these tasks (e.g. after ``--include-tasks``); overrides ``challenge``.

    Returns:
        The needs; empty when the track uses only what every Elasticsearch node has.
    """
    if tasks is None:
        challenges = (challenge,) if challenge is not None else track.challenges
        tasks = [t for c in challenges for t in c.tasks()]
    needs: dict[Need, None] = {}
    for task in tasks:
        for need in _task_needs(track, task):
            needs.setdefault(need, None)
    return tuple(needs)


def _task_needs(track: Track, task: Task) -> Iterator[Need]:
    op_type = task.operation.operation_type
    params = task.operation.params
    where = f"task '{task.name}'"
    module = OPERATION_MODULES.get(op_type)
    if module:
        yield Need(module=module, feature=f"operation type '{op_type}'", where=where)
    if op_type == "put-pipeline":
        yield from pipeline_needs(params.get("body"), where=where)
    elif op_type == "raw-request":
        yield from _raw_request_needs(params, where)
    elif op_type == "create-index":
        for name, body in _created_indices(track, params):
            yield from index_body_needs(body, where=f"index '{name}'")
    elif op_type in _TEMPLATE_OPERATIONS:
        attribute, label = _TEMPLATE_OPERATIONS[op_type]
        for name, content in _created_templates(getattr(track, attribute), params):
            yield from template_needs(content, where=f"{label} '{name}'")
    else:
        yield from script_needs(params, where=where)


def _raw_request_needs(params: Mapping[str, object], where: str) -> Iterator[Need]:
    path = "/" + str(params.get("path", "")).lstrip("/")
    for prefix, module in PATH_MODULES.items():
        if path == prefix or path.startswith(prefix + "/") or path.startswith(prefix + "?"):
            yield Need(module=module, feature=f"API {prefix}", where=where)
    body = params.get("body")
    if path.startswith("/_ingest/pipeline/") and str(params.get("method", "GET")).upper() == "PUT":
        yield from pipeline_needs(body, where=where)
    else:
        yield from script_needs(body, where=where)


def _created_indices(track: Track, params: Mapping[str, object]) -> Iterator[tuple[str, object]]:
    # The same selection as the create-index parameter source (driver/params/admin.py).
    wanted = _names(params.get("index"))
    known = set()
    for index in track.indices:
        known.add(index.name)
        if not wanted or index.name in wanted:
            yield index.name, _with_settings(index.body, params.get("settings"))
    for name in wanted:
        if name not in known:
            yield name, _with_settings(params.get("body"), params.get("settings"))


def _created_templates(
    templates: Iterable[IndexTemplate], params: Mapping[str, object]
) -> Iterator[tuple[str, object]]:
    if "template" in params and "body" in params:
        yield str(params["template"]), params["body"]
        return
    wanted = params.get("template")
    for template in templates:
        if not wanted or template.name == wanted:
            yield template.name, template.content


def _names(value: object) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    # Anything else is a list of names, as the create-index parameter source reads it.
    return [str(v) for v in cast("Iterable[object]", value)]


def _with_settings(body: object, settings: object) -> object:
    if not settings:
        return body
    # Index bodies and settings are JSON objects (the create-index parameter source merges them alike).
    merged = dict(cast("Mapping[str, object]", body or {}))
    current = cast("Mapping[str, object]", merged.get("settings") or {})
    merged["settings"] = {**dict(current), **dict(cast("Mapping[str, object]", settings))}
    return merged


# --- pipelines ------------------------------------------------------------------------------------


def pipeline_needs(body: object, *, where: str) -> Iterator[Need]:
    """The needs of an ingest pipeline body: its processors (recursively) and their scripts.

    Source of the shapes: Elasticsearch's ingest pipeline docs (``processors``, ``on_failure``,
    ``if``, ``foreach.processor``), https://www.elastic.co/guide/en/elasticsearch/reference/current/ingest.html
    """
    if not isinstance(body, Mapping):
        return
    for key in ("processors", "on_failure"):
        yield from _processors_needs(body.get(key), where)


def _processors_needs(processors: object, where: str) -> Iterator[Need]:
    if isinstance(processors, Mapping):
        processors = [processors]
    if not isinstance(processors, list):
        return
    for processor in processors:
        if not isinstance(processor, Mapping):
            continue
        for ptype, config in processor.items():
            module = INGEST_PROCESSOR_MODULES.get(ptype, UNKNOWN_MODULE)
            yield Need(module=module, feature=f"ingest processor '{ptype}'", where=where, processor=ptype)
            if not isinstance(config, Mapping):
                continue
            if "if" in config:
                yield from _script_value_needs(config["if"], where, what="condition")
            if ptype == "script":
                yield from _script_value_needs(config, where, what="script processor")
            if ptype == "foreach":
                yield from _processors_needs(config.get("processor"), where)
            yield from _processors_needs(config.get("on_failure"), where)


# --- scripts --------------------------------------------------------------------------------------


def script_needs(value: object, *, where: str) -> Iterator[Need]:
    """The script languages used anywhere in ``value`` (operation params, a body, a mapping)."""
    yield from _walk_scripts(value, where, parent=None)


def _walk_scripts(value: object, where: str, parent: str | None) -> Iterator[Need]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in _SCRIPT_KEYS and _is_script(item, parent):
                yield from _script_value_needs(item, where, what="script")
            else:
                yield from _walk_scripts(item, where, parent=str(key))
    elif isinstance(value, list):
        for item in value:
            yield from _walk_scripts(item, where, parent=parent)


def _is_script(value: object, parent: str | None) -> bool:
    if isinstance(value, str):
        return parent not in _FIELD_QUERIES
    return isinstance(value, Mapping) and any(k in value for k in ("source", "inline", "id"))


def _script_value_needs(value: object, where: str, *, what: str) -> Iterator[Need]:
    # A stored script ({"id": ...}) has the language it was stored with, which the track does not say.
    if isinstance(value, Mapping):
        if "source" not in value and "inline" not in value:
            return
        lang = str(value.get("lang") or DEFAULT_SCRIPT_LANG)
    elif isinstance(value, str):
        lang = DEFAULT_SCRIPT_LANG
    else:
        return
    module = SCRIPT_LANG_MODULES.get(lang)
    if module:
        yield Need(module=module, feature=f"{lang} {what}", where=where)


# --- index bodies ---------------------------------------------------------------------------------


def template_needs(content: object, *, where: str) -> Iterator[Need]:
    """The needs of a legacy, composable or component template body."""
    if not isinstance(content, Mapping):
        return
    inner = content.get("template")
    body = inner if isinstance(inner, Mapping) else content
    yield from index_body_needs(body, where=where)
    if isinstance(inner, Mapping) and inner.get("lifecycle") is not None:
        yield Need(module="data-streams", feature="data stream lifecycle", where=where)


def index_body_needs(body: object, *, where: str) -> Iterator[Need]:
    """The needs of an index body (``settings``, ``mappings``): analysis components, field types,
    scripts in mappings, ILM settings."""
    if not isinstance(body, Mapping):
        return
    given = body.get("settings")
    settings: Mapping[str, object] = given if isinstance(given, Mapping) else {}
    flat = dict(_flatten(settings))
    for key, module in SETTING_MODULES.items():
        if key in flat or key.removeprefix("index.") in flat:
            yield Need(module=module, feature=f"setting '{key}'", where=where)
    analysis = _analysis_section(settings)
    defined = {kind: set(_section(analysis, kind)) for kind in Kind}
    yield from _analysis_definition_needs(analysis, defined, where)
    mappings = body.get("mappings")
    if isinstance(mappings, Mapping):
        yield from _mapping_needs(mappings, defined, where)


def _flatten(value: Mapping[str, object], prefix: str = "") -> Iterator[tuple[str, object]]:
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, Mapping):
            yield from _flatten(item, name + ".")
        else:
            yield name, item


def _analysis_section(settings: Mapping[str, object]) -> Mapping[str, object]:
    index = settings.get("index")
    for candidate in (
        settings.get("analysis"),
        index.get("analysis") if isinstance(index, Mapping) else None,
    ):
        if isinstance(candidate, Mapping):
            return candidate
    return {}


def _section(analysis: Mapping[str, object], kind: Kind) -> Mapping[str, object]:
    section = analysis.get(kind.value)
    return section if isinstance(section, Mapping) else {}


def _component(kind: Kind, name: object, defined: Mapping[Kind, set[str]], where: str) -> Iterator[Need]:
    if isinstance(name, Mapping):  # an inline definition
        yield from _typed(kind, name.get("type"), None, where)
        return
    if not isinstance(name, str) or name in defined[kind]:
        return
    module = analysis_provider(kind, name, by_type=False)
    if module:
        yield Need(module=module, feature=f"{_label(kind)} '{name}'", where=where)


def _typed(kind: Kind, type_name: object, defined_as: str | None, where: str) -> Iterator[Need]:
    if not isinstance(type_name, str):
        return
    module = analysis_provider(kind, type_name, by_type=True)
    if module:
        suffix = f" (defined as '{defined_as}')" if defined_as else ""
        yield Need(module=module, feature=f"{_label(kind)} type '{type_name}'{suffix}", where=where)


def _label(kind: Kind) -> str:
    return {Kind.FILTER: "token filter", Kind.CHAR_FILTER: "char filter"}.get(kind, kind.value)


def _as_list(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _analysis_definition_needs(
    analysis: Mapping[str, object], defined: Mapping[Kind, set[str]], where: str
) -> Iterator[Need]:
    for kind in Kind:
        for name, definition in _section(analysis, kind).items():
            if not isinstance(definition, Mapping):
                continue
            type_name = definition.get("type")
            if kind is Kind.ANALYZER and type_name is None and "tokenizer" in definition:
                type_name = "custom"
            yield from _typed(kind, type_name, name, where)
            if kind is Kind.ANALYZER:
                yield from _component(Kind.TOKENIZER, definition.get("tokenizer"), defined, where)
            if kind in (Kind.ANALYZER, Kind.TOKENIZER):
                for ref in _as_list(definition.get("filter")):
                    yield from _component(Kind.FILTER, ref, defined, where)
                for ref in _as_list(definition.get("char_filter")):
                    yield from _component(Kind.CHAR_FILTER, ref, defined, where)
    normalizers = analysis.get("normalizer")
    if isinstance(normalizers, Mapping):
        for definition in normalizers.values():
            if isinstance(definition, Mapping):
                for ref in _as_list(definition.get("filter")):
                    yield from _component(Kind.FILTER, ref, defined, where)
                for ref in _as_list(definition.get("char_filter")):
                    yield from _component(Kind.CHAR_FILTER, ref, defined, where)


def _mapping_needs(
    mappings: Mapping[str, object], defined: Mapping[Kind, set[str]], where: str
) -> Iterator[Need]:
    if "properties" not in mappings and len(mappings) == 1:
        # A typed (pre-7) mapping: {"_doc": {"properties": ...}}.
        (inner,) = mappings.values()
        if isinstance(inner, Mapping):
            mappings = inner
    yield from script_needs(mappings.get("runtime"), where=where)
    yield from _properties_needs(mappings.get("properties"), defined, where)
    templates = mappings.get("dynamic_templates")
    for entry in templates if isinstance(templates, list) else ():
        for template in entry.values() if isinstance(entry, Mapping) else ():
            if isinstance(template, Mapping) and isinstance(template.get("mapping"), Mapping):
                yield from _field_needs(template["mapping"], defined, where)


def _properties_needs(properties: object, defined: Mapping[Kind, set[str]], where: str) -> Iterator[Need]:
    if not isinstance(properties, Mapping):
        return
    for field in properties.values():
        if isinstance(field, Mapping):
            yield from _field_needs(field, defined, where)


def _field_needs(field: Mapping[str, object], defined: Mapping[Kind, set[str]], where: str) -> Iterator[Need]:
    field_type = field.get("type")
    if isinstance(field_type, str) and field_type in FIELD_TYPE_MODULES:
        yield Need(module=FIELD_TYPE_MODULES[field_type], feature=f"field type '{field_type}'", where=where)
    for key in _ANALYZER_REFERENCES:
        yield from _component(Kind.ANALYZER, field.get(key), defined, where)
    if "script" in field:
        yield from _script_value_needs(field["script"], where, what="script")
    yield from _properties_needs(field.get("properties"), defined, where)
    yield from _properties_needs(field.get("fields"), defined, where)
