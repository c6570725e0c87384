"""The two dialects of one track format: Rally's tracks and OpenSearch Benchmark's workloads.

OpenSearch Benchmark (OSB 2.x) forked Rally and renamed the words of the format, not its meaning.
This module is the one place that knows the spellings; everything else asks the
:class:`DialectSpec` of a track. Sources: Rally 2.13 ``esrally/track/loader.py``
(``TemplateSource.collect_parts_re``, ``render_template``, ``TrackPluginReader``) and OSB 2.4.0
``osbenchmark/workload/loader.py`` (the same functions with ``benchmark.collect``,
``benchmark.helpers``, ``workload.json``, ``workload.py``, ``test_procedures``), and OSB's
``resources/workload-schema.json``.

=========================  ======================  ==========================
                           Rally                   OSB
=========================  ======================  ==========================
definition file            ``track.json``          ``workload.json``
plugin                     ``track.py``/``track/`` ``workload.py``/``workload/``
Jinja namespace            ``rally.collect``,      ``benchmark.collect``,
                           ``rally.helpers``       ``benchmark.helpers``
scenarios                  ``challenges``,         ``test_procedures``,
                           ``challenge``           ``test_procedure``
plugin API package         ``esrally``             ``osbenchmark``
=========================  ======================  ==========================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any


class Dialect(StrEnum):
    """Which tool's words a track is written in."""

    RALLY = "rally"
    OSB = "osb"


@dataclass(frozen=True, slots=True, kw_only=True)
class DialectSpec:
    """The spellings of one dialect.

    Attributes:
        dialect: the dialect.
        definition_file: the file name of the definition (``track.json`` / ``workload.json``).
        plugin_module: the plugin's module name beside it (``track`` / ``workload``: a ``.py`` file
            or a package directory).
        namespace: the Jinja name of the helpers (``rally`` / ``benchmark``): ``NS.collect(...)``
            and ``{% import "NS.helpers" as NS %}``.
        scenarios_key / scenario_key: the top-level keys of the list of scenarios and of a single
            scenario (``challenges``/``challenge``, ``test_procedures``/``test_procedure``).
        noun / scenario_noun: the words for messages (``track``/``challenge``,
            ``workload``/``test procedure``).
        api_package: the package plugins import the tool's API from (``esrally`` / ``osbenchmark``).
        source_formats: the corpus ``source-format`` values the tool reads (Rally: ``bulk``; OSB
            2.4.0 ``Documents.SUPPORTED_SOURCE_FORMAT``: also ``hdf5`` and ``big-ann`` vector data
            sets, which only OSB's vector operations read).
    """

    dialect: Dialect
    definition_file: str
    plugin_module: str
    namespace: str
    scenarios_key: str
    scenario_key: str
    noun: str
    scenario_noun: str
    api_package: str
    source_formats: tuple[str, ...] = ("bulk",)

    @property
    def helpers_name(self) -> str:
        """The template name of the helper macros (``rally.helpers`` / ``benchmark.helpers``)."""
        return f"{self.namespace}.helpers"


RALLY = DialectSpec(
    dialect=Dialect.RALLY,
    definition_file="track.json",
    plugin_module="track",
    namespace="rally",
    scenarios_key="challenges",
    scenario_key="challenge",
    noun="track",
    scenario_noun="challenge",
    api_package="esrally",
)

OSB = DialectSpec(
    dialect=Dialect.OSB,
    definition_file="workload.json",
    plugin_module="workload",
    namespace="benchmark",
    scenarios_key="test_procedures",
    scenario_key="test_procedure",
    noun="workload",
    scenario_noun="test procedure",
    api_package="osbenchmark",
    source_formats=("bulk", "hdf5", "big-ann"),
)

DIALECTS: dict[Dialect, DialectSpec] = {spec.dialect: spec for spec in (RALLY, OSB)}


def dialect_of_directory(root: Path) -> DialectSpec:
    """The dialect of the definition in directory ``root``: OSB when it holds a ``workload.json``
    and no ``track.json``, else Rally (also when it holds neither)."""
    if not (root / RALLY.definition_file).is_file() and (root / OSB.definition_file).is_file():
        return OSB
    return RALLY


def dialect_of_file(definition: Path) -> DialectSpec:
    """The dialect of a definition file given by path: OSB for a file named ``workload.json``, or
    any ``.json`` file in a directory whose dialect is OSB; else Rally."""
    if definition.name == OSB.definition_file:
        return OSB
    if definition.name == RALLY.definition_file:
        return RALLY
    return dialect_of_directory(definition.parent)


def to_rally_words(spec: Any, dialect: DialectSpec) -> Any:
    """The rendered definition ``spec`` with OSB's top-level keys in Rally's words
    (``test_procedures`` → ``challenges``, ``test_procedure`` → ``challenge``), so that one reader
    and one schema serve both; Rally's own definitions are returned unchanged. A key already in
    Rally's words stays (the reader then reports both as given)."""
    if dialect.dialect is Dialect.RALLY or not isinstance(spec, dict):
        return spec
    renames = {OSB.scenarios_key: RALLY.scenarios_key, OSB.scenario_key: RALLY.scenario_key}
    return {renames.get(k, k) if renames.get(k, k) not in spec else k: v for k, v in spec.items()}


# Longest first, so that "challenges" is not read as "challenge" + "s".
_WORDS = (
    ("$.challenges", "$.test_procedures"),
    ("$.challenge", "$.test_procedure"),
    ("'challenges'", "'test_procedures'"),
    ("'challenge'", "'test_procedure'"),
    ('"challenges"', '"test_procedures"'),
    ("challenge '", "test procedure '"),
    ("Track '", "Workload '"),
    ("Track file '", "Workload file '"),
)


def in_own_words(message: str, dialect: DialectSpec) -> str:
    """A loader message about a definition read in Rally's words (:func:`to_rally_words`), told in
    the words of ``dialect``: JSON paths and key names as the user wrote them (``$.test_procedures[0]``),
    and "workload"/"test procedure" for an OSB user."""
    if dialect.dialect is Dialect.RALLY:
        return message
    for rally, osb in _WORDS:
        message = message.replace(rally, osb)
    return message
