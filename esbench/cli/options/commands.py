"""Rally 2.13's sub-commands and the esbench command paths that serve each (Rally's ``list``,
``delete`` and ``add`` take a kind as their first argument; esbench makes each kind a sub-command:
``esrally list races`` is ``esbench list races``)."""

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
