"""The sub-commands of Rally 2.13 and of OpenSearch Benchmark 2.4.0 and the esbench command paths
that serve each (Rally's ``list``, ``delete`` and ``add`` and OSB's ``list`` take a kind as their
first argument; esbench makes each kind a sub-command: ``esrally list races`` is ``esbench list
races``, ``opensearch-benchmark list test-runs`` is ``esbench list test-runs``).

Sources: Rally 2.13 ``esrally/rally.py`` and OSB 2.4.0 ``osbenchmark/benchmark.py``
(``create_arg_parser``)."""

from __future__ import annotations

#: Rally sub-command -> the esbench command paths that serve it.
RALLY_TO_ESBENCH: dict[str, tuple[str, ...]] = {
    "race": ("race",),
    "list": (
        "list telemetry",
        "list tracks",
        "list pipelines",
        "list races",
        "list cars",
        "list elasticsearch-plugins",
        "list annotations",
    ),
    "delete": ("delete race", "delete annotation"),
    "info": ("info",),
    "render-track": ("render-track",),
    "create-track": ("create-track",),
    "compare": ("compare",),
    "build": ("build",),
    "download": ("download",),
    "install": ("install",),
    "start": ("start",),
    "stop": ("stop",),
    "add": ("add annotation",),
}

#: Why esbench does not build Elasticsearch from sources (``build``, ``--revision``...).
NO_SOURCE_BUILD = (
    "esbench does not build Elasticsearch from sources: it provisions released distributions "
    "(--distribution-version=X from Elastic's download server or Maven) or an archive you give it. "
    "Build the distribution yourself (./gradlew localDistro in an Elasticsearch checkout) and pass "
    "the archive with --distribution-path=FILE, or race a cluster you started with "
    "--pipeline=benchmark-only --target-hosts=HOST:PORT."
)

#: Rally commands esbench does not serve (yet), with the paragraph they fail with (exit 64): they
#: parse any option, then stop. Another change may register the command: then it wins
#: (:mod:`esbench.cli._unserved` registers only the missing ones).
REFUSED_COMMANDS: dict[str, str] = {
    "build": NO_SOURCE_BUILD,
}

#: Every esbench command path that serves a Rally sub-command.
EVERY_RALLY_COMMAND: tuple[str, ...] = tuple(
    p for paths in RALLY_TO_ESBENCH.values() for p in paths if p not in REFUSED_COMMANDS
)

#: Rally's ``list`` kinds.
LIST_KINDS = RALLY_TO_ESBENCH["list"]


#: OSB sub-command -> the esbench command paths whose table entries serve its options. OSB's names
#: are the same click commands under another name (:mod:`esbench.cli._osb_names`): ``run`` is
#: ``race``, ``list workloads`` / ``test-runs`` / ``cluster-configs`` / ``opensearch-plugins`` are
#: ``list tracks`` / ``races`` / ``cars`` / ``elasticsearch-plugins`` (with OSB's columns), and
#: ``create-workload`` is ``create-track``.
OSB_TO_ESBENCH: dict[str, tuple[str, ...]] = {
    "run": ("race",),
    "list": (
        "list telemetry",
        "list tracks",
        "list pipelines",
        "list races",
        "list aggregated-results",
        "list cars",
        "list elasticsearch-plugins",
    ),
    "info": ("info",),
    "generate-data": ("generate-data",),
    "create-workload": ("create-track",),
    "compare": ("compare",),
    "visualize": ("visualize",),
    "aggregate": ("aggregate",),
    "download": ("download",),
    "install": ("install",),
    "start": ("start",),
    "stop": ("stop",),
}

#: Why esbench does not aggregate test runs into a stored aggregate (OSB's ``aggregate``,
#: ``list aggregated-results``, ``run --test-iterations``...).
NO_AGGREGATE = (
    "esbench does not store aggregated test runs: it keeps every race and aggregates them when it "
    "reads them. Tag the races of one series (--user-tag=series:s1) and name them together: "
    "esbench compare --baseline=tag:series:s1 --contender=tag:series:s2 merges each side's latency "
    "histograms and averages its throughput, and esbench list test-runs --user-tag=series:s1 lists them."
)

#: OSB commands esbench does not serve, with the paragraph they fail with (exit 64).
OSB_REFUSED_COMMANDS: dict[str, str] = {
    "generate-data": (
        "esbench does not generate synthetic corpora from index mappings or a Python module (OSB's "
        "synthetic data generator). Generate the documents with your own script into a bulk-format "
        "file (one JSON document a line), then describe it in the track's corpora with its "
        "document-count, or extract documents from a running cluster with esbench create-track "
        "(OSB's create-workload)."
    ),
    "aggregate": NO_AGGREGATE,
    "list aggregated-results": NO_AGGREGATE,
}

#: Every esbench command path that serves an OSB sub-command (short OSB spellings such as ``-w``
#: are accepted at these commands only: esbench's own commands use some letters otherwise).
EVERY_OSB_COMMAND: tuple[str, ...] = tuple(
    dict.fromkeys(p for paths in OSB_TO_ESBENCH.values() for p in paths if p not in OSB_REFUSED_COMMANDS)
)
