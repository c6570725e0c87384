"""``esbench download | install | start | stop``; ``esbench list cars | elasticsearch-plugins |
opensearch-plugins | installations``.

Rally's names and flow: ``install`` prints an installation id (Rally's JSON), ``start
--installation-id`` starts it, ``stop`` stops it (and deletes it unless ``--preserve-install``).
``start`` without an id installs and starts in one go. Machine-readable results go to stdout,
progress to stderr, except OpenSearch's ``install``, which prints its JSON on stderr as OSB does.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from esbench.cli import list_group, main
from esbench.cli._provision_options import PROVISION_OPTION_NAMES, provision_settings
from esbench.cli._track_source import pop_track_source
from esbench.cli.options import table_options
from esbench.console import tabulate
from esbench.exceptions import NotFound, UserError
from esbench.provision import installation
from esbench.provision.flavors import download_archive, get_flavor
from esbench.provision.repositories import pin_repository
from esbench.provision.settings import (
    DEFAULT_DISTRIBUTION_VERSION,
    DEFAULT_ELASTIC_URL_TEMPLATE,
    DistributionRepository,
    ProvisionSettings,
)


def _err(message: str, quiet: bool = False) -> None:
    if not quiet:
        click.echo(message, err=True)


def _settings(options: dict[str, Any], offline: bool) -> ProvisionSettings:
    """The provisioning settings of a command's options (each provisioning option is popped)."""
    return provision_settings(
        **{k: options.pop(k) for k in PROVISION_OPTION_NAMES if k in options}, offline=offline
    )


def _pin(settings: ProvisionSettings, quiet: bool = False) -> ProvisionSettings:
    # Resolve --distribution-repository=auto here so a fallback is one clean line on stderr.
    return pin_repository(settings, notify=lambda line: _err(f"[WARNING] {line}", quiet))[0]


def for_target(
    settings: ProvisionSettings, target_os: str | None, target_arch: str | None
) -> ProvisionSettings:
    """``settings`` fetching Elastic's archive for ``target_os``/``target_arch`` (Rally's ``download
    --target-os/--target-arch``): the URL template with ``{os}``/``{arch}`` filled in.

    Raises:
        UserError: the Maven repository (its integ-test archive is the same for every platform) or
            OpenSearch (esbench fetches this machine's bundle or the Maven archive).
    """
    if settings.distribution_flavor != "elasticsearch":
        raise UserError(
            "--target-os/--target-arch pick one of Elastic's platform archives; for OpenSearch esbench "
            "fetches this machine's bundle from OpenSearch's release server (--distribution-repository="
            "release) or the Maven integ-test zip, which is the same on every platform: drop them."
        )
    if settings.distribution_repository is DistributionRepository.MAVEN:
        raise UserError(
            "--target-os/--target-arch pick one of Elastic's platform archives, but the Maven integ-test "
            "archive (--distribution-repository=maven) is the same on every platform: drop them, or use "
            "--distribution-repository=release."
        )
    template = (
        settings.elastic_url_template
        or os.environ.get("ESBENCH_DISTRIBUTION_URL")
        or DEFAULT_ELASTIC_URL_TEMPLATE
    )
    if target_os:
        template = template.replace("{os}", target_os)
    if target_arch:
        template = template.replace("{arch}", target_arch)
    return replace(
        settings, elastic_url_template=template, distribution_repository=DistributionRepository.ELASTIC
    )


@main.command()
@table_options("download")
def download(
    offline: bool,
    track_name: str | None,
    track_path: Path | None,
    track_params: str,
    challenge: str | None,
    test_mode: bool,
    quiet: bool,
    target_os: str | None,
    target_arch: str | None,
    **options: Any,
) -> None:
    """Fetch an Elasticsearch (or OpenSearch) distribution into the cache and print the archive's path
    as Rally's and OSB's JSON, {"elasticsearch": PATH} or {"opensearch": PATH} (--target-os/--target-arch:
    Elastic's archive for another machine); with --track or --track-path, fetch (download, decompress,
    index) its corpora and print their files."""
    source = pop_track_source(options)
    team_options = ("team_path", "team_repository", "team_revision", "elasticsearch_plugins")
    if any(options.get(k) for k in team_options):
        raise UserError(
            "download fetches a distribution or a track's corpora; --team-path, --team-repository, "
            "--team-revision and --elasticsearch-plugins shape an installation: give them to install, "
            "start or race."
        )
    version = options.get("distribution_version")
    settings = _settings(options, offline)
    if not (track_name or track_path):
        if target_os or target_arch:
            settings = for_target(settings, target_os, target_arch)
        archive = download_archive(_pin(settings, quiet))
        click.echo(json.dumps({get_flavor(settings.distribution_flavor).executable: str(archive)}, indent=2))
        return
    from esbench.corpus import corpora_read, prepare_corpora
    from esbench.track.loader import load_track
    from esbench.track.params import parse_track_params

    track_dir = None
    if track_name:
        track_dir, _ = source.resolve(track_name, offline=offline, distribution_version=lambda: version)
    track = load_track(
        name=None if (track_dir or track_path) else track_name,
        path=track_dir or track_path,
        params=parse_track_params(track_params) if track_params.strip() else {},
        test_mode=test_mode,
    )
    names = None if challenge is None else corpora_read(track, track.find_challenge(challenge).tasks())
    prepared = prepare_corpora(
        track, corpus_names=names, offline=offline, progress=lambda line: _err(line, quiet)
    )
    for ready in prepared.all():
        click.echo(f"{ready.corpus}\t{ready.document_count}\t{ready.path}")


@main.command()
@table_options("install")
def install(
    offline: bool,
    quiet: bool,
    installation_id: str | None,
    node_name: str | None,
    build_type: str | None,
    **options: Any,
) -> None:
    """Install Elasticsearch or OpenSearch (no node is started) and print the installation id as JSON,
    {"installation-id": "..."} (Elasticsearch: on stdout, as Rally; OpenSearch: on stderr, as OSB)."""
    from esbench.provision import cluster

    settings = replace(_settings(options, offline), installation_id=installation_id, node_name=node_name)
    inst = cluster.install(_pin(settings, quiet))
    # Rally 2.13 esrally/mechanic/mechanic.py install prints the JSON on stdout; OSB 2.4.0
    # osbenchmark/builder/builder.py install on stderr (println(..., stderr=True)) with its other
    # lines on stdout. Either way the JSON is the only line on its stream.
    opensearch = inst.distribution_flavor != "elasticsearch"
    if not quiet:
        click.echo(
            f"Installed {get_flavor(inst.distribution_flavor).product} {inst.version} "
            f"(car {inst.car['name']}, {len(inst.nodes)} node(s)) in {inst.root}.",
            err=not opensearch,
        )
    click.echo(json.dumps({"installation-id": inst.id}, indent=2), err=opensearch)


@main.command()
@table_options("start")
def start(
    installation_id: str | None, race_id: str | None, offline: bool, quiet: bool, **options: Any
) -> None:
    """Start an installation (or install and start one) and print its endpoints and installation id.

    With --race-id (OSB: --test-run-id) the installation keeps the id, and 'stop' files the nodes' logs
    under the race of that id (see docs/provisioning.md)."""
    from esbench.provision import cluster
    from esbench.provision.provisioned import provision_cluster
    from esbench.provision.security import SecurityMaterial

    settings = _settings(options, offline)
    began = time.monotonic()
    if installation_id:
        inst = installation.load(installation_id)
        started = cluster.start(inst, timeout=settings.start_timeout, stop_timeout=settings.stop_timeout)
    else:
        pc = provision_cluster(_pin(settings, quiet), race_dir=None)
        started = pc.installation
    # Rally 2.13 esrally/mechanic/mechanic.py start keeps (nodes, race id) in the node file, read by
    # stop; a start without one forgets the id of a start before it (stop --preserve-install).
    if race_id is not None or RACE_ID_KEY in started.extra:
        extra = {k: v for k, v in started.extra.items() if k != RACE_ID_KEY}
        started = replace(started, extra=extra if race_id is None else {**extra, RACE_ID_KEY: race_id})
        installation.save(started)
    _err(
        f"Started {get_flavor(started.distribution_flavor).product} {started.version} "
        f"(car {started.car['name']}, {len(started.nodes)} node(s)) "
        f"in {time.monotonic() - began:.1f} s; the cluster is green.",
        quiet,
    )
    click.echo(f"installation-id: {started.id}")
    click.echo(f"hosts: {','.join(started.hosts)}")
    security = SecurityMaterial.from_dict(started.security)
    if security is not None:
        # Paths only: the password stays in its mode-600 file.
        click.echo(f"ca-certs: {security.ca_cert}")
        click.echo(f"user: {security.user}")
        click.echo(f"password-file: {security.password_file}")
        _err(
            "The nodes speak HTTPS with basic auth. Race them with "
            f"ESBENCH_USERNAME={security.user} "
            f'ESBENCH_PASSWORD="$(cat {security.password_file})" esbench race '
            f"--target-hosts={','.join(started.hosts)} "
            f"--client-options=\"use_ssl:true,ca_certs:'{security.ca_cert}'\"",
            quiet,
        )


@main.command()
@table_options("stop")
def stop(
    installation_id: str | None, preserve_install: bool, skip_telemetry: bool, quiet: bool, offline: bool
) -> None:
    """Stop an installation's nodes (default: the most recently started running one) and delete it.

    The installation is kept with --preserve-install (here or when it was installed/started).
    """
    from esbench.provision import cluster

    if installation_id:
        inst = installation.load(installation_id)
    else:
        running = cluster.running_installations()
        if not running:
            raise NotFound(
                "No running installation to stop. Pass --installation-id=ID "
                "(see 'esbench list installations')."
            )
        inst = running[-1]
    preserve_install = preserve_install or bool(inst.extra.get("preserve_install"))
    race_dir = _race_to_file_under(inst, skip_telemetry, quiet)
    pids = cluster.stop(
        inst, preserve_install=preserve_install, logs_to=race_dir / "logs" if race_dir else None
    )
    kept = f"kept in {inst.root}" if preserve_install else "deleted"
    _err(f"Stopped installation {inst.id} ({len(pids)} process(es)); installation {kept}.", quiet)
    if race_dir is not None:
        _err(
            f"Filed the nodes' logs under race {race_dir.name}: {race_dir / 'logs'}/<node> (JVM telemetry "
            f"files, if any, in {race_dir / 'telemetry'}/<node>).",
            quiet,
        )
    click.echo(inst.id)


#: The key of the installation's ``extra`` that holds ``start --race-id``.
RACE_ID_KEY = "race_id"


def _race_to_file_under(inst: installation.Installation, skip_telemetry: bool, quiet: bool) -> Path | None:
    """The race directory ``stop`` files the nodes' logs in: that of the race id given to ``start``,
    when such a race is stored (Rally 2.13 ``esrally/mechanic/mechanic.py`` ``stop`` looks the race up
    and stores nothing when it is not found, or with ``--skip-telemetry``)."""
    race_id = inst.extra.get(RACE_ID_KEY)
    if not isinstance(race_id, str) or skip_telemetry:
        return None
    from esbench.home import home_subdir

    race_dir = home_subdir("races") / race_id
    if race_dir.is_dir():
        return race_dir
    _err(
        f"[INFO] No race '{race_id}' is stored in {race_dir.parent}, so nothing is filed under it (Rally "
        "likewise stores no node metrics for a race it cannot find). Race the nodes before stopping them: "
        f"esbench race --pipeline=benchmark-only --target-hosts={','.join(inst.hosts)} --race-id={race_id}",
        quiet,
    )
    return None


def _listed_team(
    team_path: Path | None,
    team_repository: str | None,
    team_revision: str | None,
    distribution_version: str | None,
    offline: bool,
) -> Path | None:
    from esbench.provision.teamconfig import resolve_team, uses_team

    settings = ProvisionSettings(
        team_path=team_path,
        team_repository=team_repository,
        team_revision=team_revision,
        offline=offline,
        distribution_version=distribution_version or DEFAULT_DISTRIBUTION_VERSION,
    )
    return resolve_team(settings)[0] if uses_team(settings) else None


@list_group.command(name="cars")
@table_options("list cars")
def list_cars_command(quiet: bool, **team: Any) -> None:
    """List the cars and mixins usable with --car (of a team with --team-path/--team-repository)."""
    from esbench.provision.cars import list_cars
    from esbench.provision.teams import list_team_cars

    directory = _listed_team(**team)
    if directory is None:
        rows = [(c.name, c.type, c.description) for c in list_cars()]
    else:
        rows = [(c.name, c.type, c.description) for c in list_team_cars(directory)]
    click.echo(tabulate(rows, headers=["Name", "Type", "Description"], tablefmt="simple"))


@list_group.command(name="elasticsearch-plugins")
@table_options("list elasticsearch-plugins")
def list_plugins_command(quiet: bool, **team: Any) -> None:
    """List the plugins and plugin configurations of a team (--team-path, --team-repository; by default
    the team repository 'default', rally-teams, as Rally does; as 'list opensearch-plugins', OSB's
    bundled list, offline)."""
    from esbench.provision.plugins import list_plugins

    if not (team["team_path"] or team["team_repository"] or team["team_revision"]):
        if click.get_current_context().info_name == "opensearch-plugins":
            _list_opensearch_plugins(quiet)
            return
        team["team_repository"] = "default"
    directory = _listed_team(**team)
    assert directory is not None  # a team option is set
    rows = list_plugins(directory)
    # Rally 2.13 esrally/mechanic/team.py list_plugins: its heading, or its line for an empty team.
    if not rows:
        click.echo("No Elasticsearch plugins are available.\n")
        return
    click.echo("Available Elasticsearch plugins:\n")
    click.echo(tabulate(rows, headers=["Name", "Configuration"], tablefmt="simple"))


def _list_opensearch_plugins(quiet: bool) -> None:
    """OSB 2.4.0's ``list opensearch-plugins`` (``osbenchmark/builder/cluster_config.py``
    ``list_plugins``): its heading and table on stdout, from the list esbench carries."""
    from esbench.provision.plugins import OPENSEARCH_PLUGIN_CONFIGS, list_opensearch_plugins

    click.echo("Available OpenSearch plugins:\n")
    click.echo(tabulate(list_opensearch_plugins(), headers=["Name", "Configuration"]))
    configured = ", ".join(f"{n}:{c}" for n, c in OPENSEARCH_PLUGIN_CONFIGS)
    _err(
        f"esbench installs these plugins into OpenSearch by name (--opensearch-plugins=NAME); the "
        f"configurations ({configured}) come from a team, which esbench applies to Elasticsearch only.",
        quiet,
    )


@list_group.command(name="installations")
def list_installations_command() -> None:
    """List installations known to this esbench home (id, version, car, status, hosts)."""
    rows = [
        (
            i.id,
            (
                i.version
                if i.distribution_flavor == "elasticsearch"
                else f"{i.version} ({i.distribution_flavor})"
            ),
            i.car["name"],
            len(i.nodes),
            i.status,
            ",".join(n.host for n in i.nodes if n.http_port is not None),
        )
        for i in installation.list_installations()
    ]
    click.echo(
        tabulate(rows, headers=["Id", "Version", "Car", "Nodes", "Status", "Hosts"], tablefmt="simple")
    )
