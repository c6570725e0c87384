"""Options that say which cluster a race runs against, and how esbench provisions one (Rally's
``--target-hosts``, ``--pipeline``, ``--distribution-*``, ``--car``... in ``esrally/rally.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import _params
from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.track import AD_HOC, PLANNING, RACING
from esbench.provision.flavors import OPENSEARCH, DistributionFlavor
from esbench.provision.settings import DEFAULT_DISTRIBUTION_VERSION

#: Commands that provision a cluster (or race one that they provision).
PROVISIONING = (*RACING, "download", "install", "start", *PLANNING, *AD_HOC)
#: Rally's list kinds that read a team (its cars, its plugins).
TEAM_LISTS = ("list cars", "list elasticsearch-plugins")
#: Commands that race a cluster, provisioned or not.
RACING_ANY = (*RACING, *AD_HOC)

CLUSTER_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="target_hosts",
        flags=("--target-hosts",),
        osb=("-t",),
        commands=(*RACING_ANY, "info", *PLANNING),
        type=_params.HOSTS,
        help="HOST:PORT[,HOST:PORT...] of an existing cluster; for several clusters a JSON object "
        'or .json file: {"default": ["HOST:PORT"], "remote": ["HOST:PORT"]} (docs/targets.md).',
        field="RaceSettings.target_hosts (default cluster), RaceSettings.driver.other_clusters",
    ),
    CliOption(
        name="pipeline",
        flags=("--pipeline",),
        commands=(*RACING_ANY, *PLANNING),
        type=_params.pipeline_type,
        help="benchmark-only (races --target-hosts, else 127.0.0.1:9200, as Rally and OSB) or "
        "from-distribution. Without --pipeline, as Rally and OSB choose: from-distribution when "
        "--distribution-version is given; on an OSB command line (esbench run, --workload) "
        "benchmark-only; else "
        "benchmark-only with --target-hosts and from-distribution without. Rally's from-sources and "
        "docker are refused with their reason.",
        field="RaceSettings.pipeline",
    ),
    CliOption(
        name="distribution_version",
        flags=("--distribution-version",),
        commands=PROVISIONING,
        help=f"Version to provision [default: {DEFAULT_DISTRIBUTION_VERSION}; "
        f"with --distribution-flavor=opensearch: {OPENSEARCH.default_version}]. Under OSB's command name "
        "(esbench run) an OpenSearch version, as in OSB: run provisions OpenSearch unless "
        "--distribution-flavor says otherwise. On every command a 1.x, 2.x or 3.x version (no "
        "Elasticsearch esbench provisions has one) means OpenSearch unless --distribution-flavor is given.",
        field="ProvisionSettings.distribution_version",
    ),
    CliOption(
        name="distribution_repository",
        flags=("--distribution-repository",),
        commands=PROVISIONING,
        type=_params.distribution_repository_type,
        default="auto",
        show_default=True,
        help="release (Rally's and OSB's name): the product's release server: for Elasticsearch the full "
        "tar.gz from Elastic's download server, as 'elastic'; for OpenSearch its full bundle from "
        "artifacts.opensearch.org, as OSB; "
        "auto: that server when it answers within a few seconds, else maven; "
        "maven: the integ-test distribution via the mvn client (your settings.xml mirrors apply); "
        "elastic: the full tar.gz from Elastic's download server "
        "($ESBENCH_DISTRIBUTION_URL overrides the URL).",
        field="ProvisionSettings.distribution_repository",
    ),
    CliOption(
        name="distribution_path",
        flags=("--distribution-path",),
        commands=PROVISIONING,
        rally=False,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="A local Elasticsearch .zip/.tar.gz to use instead of a repository.",
        field="ProvisionSettings.distribution_path",
    ),
    CliOption(
        name="car",
        flags=("--car",),
        osb=("--cluster-config",),
        commands=PROVISIONING,
        default="defaults",
        show_default=True,
        type=_params.NAMES,
        help="Car and mixins, comma-separated (e.g. defaults,4gheap,ea) or a JSON array "
        "('[\"defaults\",\"ea\"]'); see 'esbench list cars'.",
        field="ProvisionSettings.car",
    ),
    CliOption(
        name="car_params",
        flags=("--car-params",),
        osb=("--cluster-config-params",),
        commands=PROVISIONING,
        default="",
        type=lambda: _params.params_type("--car-params"),
        help="Override car variables: key:value list, inline JSON or a .json file (e.g. heap_size:3g).",
        field="ProvisionSettings.car_params",
    ),
    # Teams and plugins: esbench.provision.teams, .teamrepos and .plugins (Rally's team.py, provisioner.py).
    CliOption(
        name="team_path",
        flags=("--team-path",),
        osb=("--cluster-config-path",),
        commands=(*PROVISIONING, *TEAM_LISTS),
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="A rally-teams checkout: --car names its cars/v1/*.ini and the node configuration is "
        "rendered from its templates, as Rally does. OSB's --cluster-config-path names a checkout in OSB's "
        "layout (cluster_configs/v1/*.ini), which esbench does not read: give it the rally-teams layout.",
        field="ProvisionSettings.team_path",
    ),
    CliOption(
        name="team_repository",
        flags=("--team-repository",),
        osb=("--cluster-config-repository",),
        commands=(*PROVISIONING, *TEAM_LISTS),
        help="Named team repository ([teams] NAME.url in esbench.ini; 'default' is rally-teams), "
        "cloned into <esbench home>/benchmarks/teams/NAME.",
        field="ProvisionSettings.team_repository",
    ),
    CliOption(
        name="team_revision",
        flags=("--team-revision",),
        osb=("--cluster-config-revision",),
        commands=(*PROVISIONING, *TEAM_LISTS),
        help="Commit, tag or branch of the team repository "
        "(default: the branch for the distribution version).",
        field="ProvisionSettings.team_revision",
    ),
    CliOption(
        name="elasticsearch_plugins",
        flags=("--elasticsearch-plugins",),
        osb=("--opensearch-plugins",),
        commands=PROVISIONING,
        type=_params.NAMES,
        help="Plugins to install, comma-separated (or a JSON array), each PLUGIN or PLUGIN:CONFIG[+CONFIG] "
        "(e.g. analysis-icu); a local zip via [distributions] plugin.NAME.release.url in esbench.ini.",
        field="ProvisionSettings.elasticsearch_plugins",
    ),
    CliOption(
        name="plugin_params",
        flags=("--plugin-params",),
        commands=PROVISIONING,
        type=lambda: _params.params_type("--plugin-params"),
        help="Variables for every plugin's templates: key:value list, inline JSON or a .json file.",
        field="ProvisionSettings.plugin_params",
    ),
    CliOption(
        name="nodes",
        flags=("--nodes",),
        # A sweep takes --nodes as a list of node counts (esbench.cli.planning).
        commands=tuple(p for p in PROVISIONING if p != "sweep"),
        rally=False,
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Number of nodes on 127.0.0.1 forming one cluster.",
        field="ProvisionSettings.nodes",
    ),
    CliOption(
        name="cluster_name",
        flags=("--cluster-name",),
        commands=PROVISIONING,
        help="cluster.name of the provisioned nodes [default: esbench-<installation id prefix>; "
        "Rally's is rally-benchmark].",
        field="ProvisionSettings.cluster_name",
    ),
    CliOption(
        name="runtime_jdk",
        flags=("--runtime-jdk",),
        commands=PROVISIONING,
        type=_params.RUNTIME_JDK,
        help="Major version of the JDK that runs the provisioned nodes (e.g. 21; found via JAVA21_HOME, "
        "like Rally, else the usual search), or 'bundled' for the distribution's own JDK "
        "[default: the first suitable JDK].",
        field="ProvisionSettings.runtime_jdk",
    ),
    CliOption(
        name="preserve_install",
        flags=("--preserve-install",),
        commands=(*PROVISIONING, "stop"),
        kind=Kind.FLAG,
        help="Keep the installation (config, data, logs) after the nodes stop.",
        field="ProvisionSettings.preserve_install",
    ),
    CliOption(
        name="run_as_user",
        flags=("--run-as-user",),
        commands=PROVISIONING,
        rally=False,
        help="Account that runs the nodes when esbench runs as root (default: esbench, created if missing).",
        field="ProvisionSettings.run_as_user",
    ),
    CliOption(
        name="distribution_flavor",
        flags=("--distribution-flavor",),
        commands=PROVISIONING,
        rally=False,
        type=click.Choice([f.value for f in DistributionFlavor]),
        default=DistributionFlavor.ELASTICSEARCH.value,
        show_default=True,
        help="Product to provision: elasticsearch, or opensearch (its Maven integ-test zip "
        "org.opensearch.distribution.integ-test-zip:opensearch:<version>:zip, e.g. 2.18.0).",
        field="ProvisionSettings.distribution_flavor",
    ),
    CliOption(
        name="client_options",
        flags=("--client-options",),
        osb=("-c",),
        commands=(*RACING_ANY, "info", *PLANNING),
        default="",
        type=_params.CLIENT_OPTIONS,
        help="Client options: timeout:60,use_ssl:true,verify_certs:true,ca_certs:'/path',http_compress:true,"
        "basic_auth_user:'u',basic_auth_password:'p' (or ESBENCH_USERNAME/ESBENCH_PASSWORD/ESBENCH_API_KEY); "
        'per cluster as JSON: {"default": {...}, "remote": {...}}.',
        field="RaceSettings.client_options (default cluster), RaceSettings.driver.other_clusters",
    ),
)
