"""Which Elasticsearch module (or plugin) provides which feature a track can use.

Every table names the Elasticsearch source file that registers the names, so it can be re-checked
when Elasticsearch adds components. Module names are the names ``GET _nodes/plugins`` reports under
``modules`` (the plugin project directory, e.g. ``modules/analysis-common`` → ``analysis-common``,
``x-pack/plugin/ilm`` → ``x-pack-ilm``).

Analysis components come in two lists per kind: what the server itself registers (always present,
also in the Maven integ-test distribution) and what a module or plugin registers. A component is
looked up by name (``"analyzer": "whitespace"``) or by ``type`` inside an index's ``analysis``
settings; for both, the server's set and the module's set are the same except for the
pre-configured (name-only) components noted below.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from esbench.track.optypes import OPERATION_TYPES


class Kind(StrEnum):
    """Kinds of analysis component, as named in index ``settings.analysis``."""

    ANALYZER = "analyzer"
    TOKENIZER = "tokenizer"
    FILTER = "filter"
    CHAR_FILTER = "char_filter"


ANALYSIS_COMMON = "analysis-common"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- server (no module needed) ------------------------------------------------------------------
# server/src/main/java/org/elasticsearch/indices/analysis/AnalysisModule.java: setupAnalyzers
# (default, standard, simple, stop, whitespace, keyword), setupTokenizers (standard),
# setupTokenFilters (stop, shingle, hunspell), setupPreConfiguredTokenFilters (lowercase, by name
# only), no char filters ("No char filter are available in lucene-core"); plus
# server/.../indices/analysis/PreBuiltAnalyzers.java (adds classic, by name only) and
# PreBuiltTokenizers.java (standard only). "custom" is AnalysisRegistry's own analyzer type.
SERVER_COMPONENTS: Mapping[Kind, frozenset[str]] = {
    Kind.ANALYZER: frozenset({"default", "standard", "simple", "stop", "whitespace", "keyword", "custom"}),
    Kind.TOKENIZER: frozenset({"standard"}),
    Kind.FILTER: frozenset({"stop", "shingle", "hunspell"}),
    Kind.CHAR_FILTER: frozenset(),
}
#: Pre-configured components the server offers by name only (a ``type`` of this name needs the module).
SERVER_NAME_ONLY: Mapping[Kind, frozenset[str]] = {
    Kind.ANALYZER: frozenset({"classic"}),
    Kind.TOKENIZER: frozenset(),
    Kind.FILTER: frozenset({"lowercase"}),
    Kind.CHAR_FILTER: frozenset(),
}

# --- analysis-common ------------------------------------------------------------------------------
# modules/analysis-common/src/main/java/org/elasticsearch/analysis/common/CommonAnalysisPlugin.java:
# getAnalyzers, getPreBuiltAnalyzerProviderFactories, getTokenizers, getPreConfiguredTokenizers,
# getTokenFilters, getPreConfiguredTokenFilters, getCharFilters, getPreConfiguredCharFilters.
_LANGUAGE_ANALYZERS = _words(
    "arabic armenian basque bengali brazilian bulgarian catalan chinese cjk czech danish dutch english "
    "estonian finnish french galician german greek hindi hungarian indonesian irish italian latvian "
    "lithuanian norwegian persian portuguese romanian russian sorani spanish swedish turkish thai"
)
_COMMON: Mapping[Kind, frozenset[str]] = {
    Kind.ANALYZER: frozenset({"fingerprint", "pattern", "snowball"}) | _LANGUAGE_ANALYZERS,
    Kind.TOKENIZER: _words(
        "simple_pattern simple_pattern_split thai ngram edge_ngram char_group classic letter lowercase "
        "path_hierarchy PathHierarchy pattern uax_url_email whitespace keyword nGram edgeNGram"
    ),
    Kind.FILTER: _words(
        "apostrophe arabic_normalization arabic_stem asciifolding bengali_normalization brazilian_stem "
        "cjk_bigram cjk_width classic common_grams condition czech_stem decimal_digit delimited_payload "
        "dictionary_decompounder dutch_stem edge_ngram edgeNGram elision fingerprint flatten_graph "
        "french_stem german_normalization german_stem hindi_normalization hyphenation_decompounder "
        "indic_normalization keep keep_types keyword_marker keyword_repeat kstem length limit lowercase "
        "min_hash multiplexer ngram nGram pattern_capture pattern_replace persian_normalization "
        "persian_stem porter_stem predicate_token_filter remove_duplicates reverse russian_stem "
        "scandinavian_folding scandinavian_normalization serbian_normalization snowball "
        "sorani_normalization stemmer_override stemmer synonym synonym_graph trim truncate "
        "type_as_payload unique uppercase word_delimiter_graph word_delimiter"
    ),
    Kind.CHAR_FILTER: frozenset({"html_strip", "pattern_replace", "mapping"}),
}

# --- analysis plugins (installed with bin/elasticsearch-plugin, not modules) -----------------------
# plugins/analysis-icu/.../AnalysisICUPlugin.java,
# plugins/analysis-kuromoji/.../AnalysisKuromojiPlugin.java,
# plugins/analysis-nori/.../AnalysisNoriPlugin.java,
# plugins/analysis-phonetic/.../AnalysisPhoneticPlugin.java,
# plugins/analysis-smartcn/.../AnalysisSmartChinesePlugin.java,
# plugins/analysis-stempel/.../AnalysisStempelPlugin.java,
# plugins/analysis-ukrainian/.../AnalysisUkrainianPlugin.java; also
# https://www.elastic.co/guide/en/elasticsearch/plugins/current/analysis.html
_PLUGINS: Mapping[str, Mapping[Kind, frozenset[str]]] = {
    "analysis-icu": {
        Kind.ANALYZER: frozenset({"icu_analyzer"}),
        Kind.TOKENIZER: frozenset({"icu_tokenizer"}),
        Kind.FILTER: frozenset({"icu_normalizer", "icu_folding", "icu_collation", "icu_transform"}),
        Kind.CHAR_FILTER: frozenset({"icu_normalizer"}),
    },
    "analysis-kuromoji": {
        Kind.ANALYZER: frozenset({"kuromoji"}),
        Kind.TOKENIZER: frozenset({"kuromoji_tokenizer"}),
        Kind.FILTER: _words(
            "kuromoji_baseform kuromoji_part_of_speech kuromoji_readingform kuromoji_stemmer ja_stop "
            "kuromoji_number kuromoji_completion"
        ),
        Kind.CHAR_FILTER: frozenset({"kuromoji_iteration_mark"}),
    },
    "analysis-nori": {
        Kind.ANALYZER: frozenset({"nori"}),
        Kind.TOKENIZER: frozenset({"nori_tokenizer"}),
        Kind.FILTER: frozenset({"nori_part_of_speech", "nori_readingform", "nori_number"}),
    },
    "analysis-phonetic": {Kind.FILTER: frozenset({"phonetic"})},
    "analysis-smartcn": {
        Kind.ANALYZER: frozenset({"smartcn"}),
        Kind.TOKENIZER: frozenset({"smartcn_tokenizer"}),
        Kind.FILTER: frozenset({"smartcn_stop"}),
    },
    "analysis-stempel": {
        Kind.ANALYZER: frozenset({"polish"}),
        Kind.FILTER: frozenset({"polish_stem", "polish_stop"}),
    },
    "analysis-ukrainian": {Kind.ANALYZER: frozenset({"ukrainian"})},
}


def analysis_provider(kind: Kind, name: str, *, by_type: bool) -> str | None:
    """The module or plugin that registers analysis component ``name`` of ``kind``.

    Args:
        kind: analyzer, tokenizer, filter or char_filter.
        name: the component name (a reference) or ``type`` (a definition).
        by_type: True when ``name`` is the ``type`` of a definition in ``settings.analysis``.

    Returns:
        None when the server itself registers it (available on every node) or when no known
        module or plugin does (a third-party plugin esbench cannot attribute); else the module or
        plugin name, e.g. ``"analysis-common"``.
    """
    if name in SERVER_COMPONENTS[kind] or (not by_type and name in SERVER_NAME_ONLY[kind]):
        return None
    if name in _COMMON[kind]:
        return ANALYSIS_COMMON
    for plugin, components in _PLUGINS.items():
        if name in components.get(kind, frozenset()):
            return plugin
    return None


# --- ingest processors ------------------------------------------------------------------------------
# modules/ingest-common/src/main/java/org/elasticsearch/ingest/common/IngestCommonPlugin.java
# (getProcessors); modules/ingest-geoip/.../IngestGeoIpPlugin.java (geoip, ip_location);
# modules/ingest-user-agent/.../IngestUserAgentPlugin.java (user_agent);
# modules/ingest-attachment/.../IngestAttachmentPlugin.java (attachment);
# x-pack/plugin/enrich/.../EnrichPlugin.java (enrich); x-pack/plugin/ml/.../MachineLearning.java
# (inference); x-pack/plugin/security/.../Security.java (set_security_user);
# x-pack/plugin/redact/.../RedactPlugin.java (redact).
_INGEST_COMMON_PROCESSORS = _words(
    "append bytes community_id convert csv date_index_name date dissect dot_expander drop fail "
    "fingerprint foreach grok gsub html_strip join json kv lowercase network_direction pipeline "
    "registered_domain remove rename reroute script set sort split terminate trim urldecode uppercase "
    "uri_parts recover_failure_document"
)
INGEST_PROCESSOR_MODULES: Mapping[str, str] = {
    **{p: "ingest-common" for p in _INGEST_COMMON_PROCESSORS},
    "geoip": "ingest-geoip",
    "ip_location": "ingest-geoip",
    "user_agent": "ingest-user-agent",
    "attachment": "ingest-attachment",
    "enrich": "x-pack-enrich",
    "inference": "x-pack-ml",
    "set_security_user": "x-pack-security",
    "redact": "x-pack-redact",
}

# --- scripts ------------------------------------------------------------------------------------------
# modules/lang-painless (PainlessPlugin, the default "lang"), modules/lang-expression
# (ExpressionPlugin), modules/lang-mustache (MustachePlugin); the default language is painless
# (server/src/main/java/org/elasticsearch/script/Script.java DEFAULT_SCRIPT_LANG).
SCRIPT_LANG_MODULES: Mapping[str, str] = {
    "painless": "lang-painless",
    "expression": "lang-expression",
    "mustache": "lang-mustache",
}
DEFAULT_SCRIPT_LANG = "painless"

# --- field types --------------------------------------------------------------------------------------
# modules/mapper-extras/src/main/java/org/elasticsearch/index/mapper/extras/MapperExtrasPlugin.java
# (getMappers), modules/parent-join/.../ParentJoinPlugin.java (join),
# modules/percolator/.../PercolatorPlugin.java (percolator).
FIELD_TYPE_MODULES: Mapping[str, str] = {
    "scaled_float": "mapper-extras",
    "token_count": "mapper-extras",
    "rank_feature": "mapper-extras",
    "rank_features": "mapper-extras",
    "search_as_you_type": "mapper-extras",
    "match_only_text": "mapper-extras",
    "join": "parent-join",
    "percolator": "percolator",
}

# --- operations (Rally operation types, https://esrally.readthedocs.io/en/stable/track.html) ---------
# Each operation type's ``module`` in the table of operation types (esbench/track/optable.py). The
# REST handlers live in modules/data-streams (DataStreamsPlugin), x-pack/plugin/ilm
# (IndexLifecycle), x-pack/plugin/ml (MachineLearning), x-pack/plugin/transform (Transform),
# x-pack/plugin/sql (SqlPlugin), x-pack/plugin/esql (EsqlPlugin).
OPERATION_MODULES: Mapping[str, str] = {op.name: op.module for op in OPERATION_TYPES if op.module is not None}

#: ``raw-request`` path prefixes served by a module (same handlers as above).
PATH_MODULES: Mapping[str, str] = {
    "/_data_stream": "data-streams",
    "/_ilm": "x-pack-ilm",
    "/_ml": "x-pack-ml",
    "/_transform": "x-pack-transform",
    "/_sql": "x-pack-sql",
    "/_query": "x-pack-esql",
}

#: Index settings whose presence needs a module: ILM's ``index.lifecycle.name``
#: (x-pack/plugin/core/.../LifecycleSettings.java, registered by x-pack/plugin/ilm).
SETTING_MODULES: Mapping[str, str] = {"index.lifecycle.name": "x-pack-ilm"}
