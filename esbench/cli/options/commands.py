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

#: Every esbench command path that serves a Rally sub-command.
EVERY_RALLY_COMMAND: tuple[str, ...] = tuple(p for paths in RALLY_TO_ESBENCH.values() for p in paths)

#: Rally's ``list`` kinds.
LIST_KINDS = RALLY_TO_ESBENCH["list"]
