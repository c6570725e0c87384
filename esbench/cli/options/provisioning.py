"""Options of ``download``, ``install``, ``start`` and ``stop`` beyond the provisioning options of
:mod:`esbench.cli.options.cluster` (Rally's ``download``, ``install``, ``start`` and ``stop``
parsers in ``esrally/rally.py``)."""

from __future__ import annotations

from esbench.cli import _params
from esbench.cli.options.entry import CliOption, Kind

_ONE_HOST = (
    "esbench provisions its nodes on 127.0.0.1 with ports it picks free at each start (and picks "
    "again when one is taken), so it does not bind to another address, a fixed port, or join nodes "
    "installed on other hosts. For a cluster on loopback use --nodes=N; for a cluster across hosts "
    "start it yourself and race it with --pipeline=benchmark-only --target-hosts=HOST:PORT,..."
)
_RACE_TELEMETRY = (
    "esbench samples telemetry during a race, not from 'start' to 'stop'. Race the started nodes with "
    "esbench race --pipeline=benchmark-only --target-hosts=<the hosts start printed> --telemetry=... "
    "--race-id=ID (devices that need provisioned nodes, such as gc or jfr, need "
    "--pipeline=from-distribution); start --race-id=ID files the nodes' logs under that race when they stop."
)

PROVISIONING_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="installation_id",
        flags=("--installation-id",),
        commands=("start", "stop"),
        help="The id printed by 'esbench install' or 'esbench start' (stop: default the most recently "
        "started running installation).",
        field="the installation started or stopped",
    ),
    CliOption(
        name="installation_id",
        flags=("--installation-id",),
        commands=("install",),
        type=_params.INSTALLATION_ID,
        help="Id of the new installation [default: a new UUID]; letters, digits, '.', '_' and '-'.",
        field="ProvisionSettings.installation_id",
    ),
    CliOption(
        name="node_name",
        flags=("--node-name",),
        commands=("install",),
        help="node.name of the node [default: node-0]; with --nodes=N the nodes are NAME-0 ... NAME-(N-1).",
        field="ProvisionSettings.node_name",
    ),
    CliOption(
        name="build_type",
        flags=("--build-type",),
        commands=("install",),
        type=_params.BUILD_TYPE,
        help="Rally's hidden option: tar (installs the distribution archive, what esbench does); docker is "
        "refused.",
        field="none: esbench always installs the archive",
    ),
    *(
        CliOption(
            name=flag[2:].replace("-", "_"),
            flags=(flag,),
            commands=("install",),
            help=text,
            field="none (refused)",
            refused=_ONE_HOST,
        )
        for flag, text in (
            ("--network-host", "Rally's address the node binds to and publishes."),
            ("--http-port", "Rally's HTTP port of the node."),
            ("--master-nodes", "Rally's initial master node names of a cluster across hosts."),
            ("--seed-hosts", "Rally's seed host addresses of a cluster across hosts."),
        )
    ),
    CliOption(
        name="race_id",
        flags=("--race-id",),
        osb=("--test-run-id", "-tid"),
        commands=("start",),
        type=_params.RACE_ID,
        help="The race the started nodes are filed under: the installation keeps the id, and 'stop' copies "
        "the nodes' logs (and JVM telemetry files) into that race's directory when a race of that id is "
        "stored by then (race them with esbench race --pipeline=benchmark-only --race-id=ID); Rally "
        "stores the nodes' system metrics (startup time, disk I/O, index size...) there, which esbench's "
        "start does not sample.",
        field="Installation.extra['race_id'], read by stop",
    ),
    CliOption(
        name="telemetry",
        flags=("--telemetry",),
        commands=("start",),
        help="Rally's telemetry devices sampled from start to stop.",
        field="none (refused)",
        refused=_RACE_TELEMETRY,
    ),
    CliOption(
        name="telemetry_params",
        flags=("--telemetry-params",),
        commands=("start",),
        help="Rally's parameters of the telemetry devices sampled from start to stop.",
        field="none (refused)",
        refused=_RACE_TELEMETRY,
    ),
    CliOption(
        name="skip_telemetry",
        flags=("--skip-telemetry",),
        commands=("stop",),
        kind=Kind.FLAG,
        help="Rally's: collect no telemetry when stopping; here: file nothing under the race id given "
        "to start.",
        field="stop: the race directory the node logs are filed in (none)",
    ),
    CliOption(
        name="target_os",
        flags=("--target-os",),
        commands=("download",),
        type=_params.TARGET_OS,
        help="Operating system of the archive to download from Elastic's download server: linux or darwin "
        "[default: this machine's].",
        field="ProvisionSettings.elastic_url_template ({os})",
    ),
    CliOption(
        name="target_arch",
        flags=("--target-arch",),
        commands=("download",),
        type=_params.TARGET_ARCH,
        help="CPU architecture of the archive to download: x86_64 or aarch64 [default: this machine's].",
        field="ProvisionSettings.elastic_url_template ({arch})",
    ),
)
