"""Run inside Rally 2.13's or OSB 2.4.0's own Python (not collected by pytest): the peer's functions
behind ``download``, ``install`` and ``list opensearch-plugins``, and OSB's release URL, with only
what would touch the machine (suppliers, provisioners, the install root) replaced. Reads one JSON
request from argv[1] and prints one JSON answer: what the peer wrote on stdout and stderr, or the URL.

Requests:
    {"peer": "rally"|"osb", "command": "download"|"install", "key": ..., "value": ...}
    {"peer": "osb", "command": "list-plugins"}
    {"peer": "osb", "command": "release-url", "version": ..., "system": ..., "machine": ...}
"""

from __future__ import annotations

import configparser
import contextlib
import io
import json
import os
import sys
import types

spec = json.loads(sys.argv[1])
peer, command = spec["peer"], spec["command"]
if peer == "rally":
    from esrally.mechanic import mechanic as mod
    from esrally.utils import console

    section = "mechanic"
    mod.load_team = lambda cfg, external: (None, [])
else:
    from osbenchmark.builder import builder as mod
    from osbenchmark.utils import console

    section = "builder"
    mod.load_cluster_config = lambda cfg, external: (None, [])


def _osb_bundled() -> str:
    import osbenchmark

    # osbenchmark/utils/repo.py _use_default_cluster_configs_dir: no version -> the "main" branch.
    return os.path.join(os.path.dirname(osbenchmark.__file__), "resources", "cluster_configs", "main")


opts = {
    (section, "distribution.version"): "1.0.0",
    (section, "build.type"): "tar",
    (section, "network.host"): "127.0.0.1",
    (section, "network.http.port"): "39200",
    (section, "node.name"): "n0",
    (section, "master.nodes"): ["n0"],
    (section, "seed.hosts"): [],
    ("system", "install.id"): spec.get("value"),
    ("builder", "cluster_config.path"): _osb_bundled() if peer == "osb" else None,
}


class Cfg:
    def opts(self, s: str, k: str, mandatory: bool = True, default_value: object = None) -> object:
        return opts.get((s, k), default_value)


out, err = io.StringIO(), io.StringIO()
if command == "release-url":
    from osbenchmark.builder import supplier
    from osbenchmark.utils import sysstats

    uname = types.SimpleNamespace(system=spec["system"], machine=spec["machine"])
    sysstats.platform = types.SimpleNamespace(uname=lambda: uname)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(_osb_bundled(), "cluster_configs", "v1", "vanilla", "config.ini"))
    repo = supplier.DistributionRepository(
        name="release",
        distribution_config=dict(parser["variables"]),
        template_renderer=supplier.TemplateRenderer(version=spec["version"]),
    )
    print(json.dumps({"url": repo.download_url}))
    sys.exit(0)
if command == "list-plugins":
    from osbenchmark.builder import cluster_config

    # A listing without --quiet (console.println prints when stdout is "a terminal").
    console.init(quiet=False, assume_tty=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        cluster_config.list_plugins(Cfg())
else:
    console.init(quiet=True)  # the peer's --quiet
    mod.paths.install_root = lambda cfg: "/nonexistent"
    mod.supplier.create = lambda *a, **k: lambda: {spec["key"]: spec["value"]}
    mod.provisioner.local = lambda **kw: types.SimpleNamespace(prepare=lambda binary: None)
    mod.provisioner.save_node_configuration = lambda *a: None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        getattr(mod, command)(Cfg())
print(json.dumps({"stdout": out.getvalue(), "stderr": err.getvalue()}))
