"""``esbench download | install | start | stop``; ``esbench list cars | elasticsearch-plugins |
installations``.

Rally's names and flow: ``install`` prints an installation id, ``start --installation-id`` starts it,
``stop`` stops it (and deletes it unless ``--preserve-install``). ``start`` without an id installs and
starts in one go. Machine-readable results go to stdout, progress to stderr.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from esbench.cli import list_group, main
from esbench.cli._provision_options import provision_options, provision_settings
from esbench.cli._track_source import pop_track_source, track_source_options
from esbench.console import tabulate
from esbench.exceptions import NotFound, UserError
from esbench.provision import installation
from esbench.provision.flavors import download_archive, get_flavor
from esbench.provision.repositories import pin_repository
from esbench.provision.settings import DEFAULT_DISTRIBUTION_VERSION, ProvisionSettings

_offline = click.option(
    "--offline", is_flag=True, default=False, help="Never download; use only cached/local artifacts."
)
_installation_id = click.option(
    "--installation-id", default=None, help="The id printed by 'esbench install' or 'esbench start'."
)


def _err(message: str) -> None:
    click.echo(message, err=True)


def _pin(settings: ProvisionSettings) -> ProvisionSettings:
    # Resolve --distribution-repository=auto here so a fallback is one clean line on stderr.
    return pin_repository(settings, notify=lambda line: _err(f"[WARNING] {line}"))[0]


@main.command()
@provision_options
@_offline
@click.option("--track", "track_name", default=None, help="Fetch this track's corpora, not a distribution.")
@click.option("--track-path", type=click.Path(exists=True, path_type=Path), default=None, help="...or these.")
@click.option("--track-params", default="", help="Track params (k:v list, inline JSON or a .json file).")
@click.option("--challenge", default=None, help="Only the corpora this challenge's tasks use (default: all).")
@click.option("--test-mode", is_flag=True, help="The -1k test-mode files instead of the full corpora.")
@track_source_options
def download(
    offline: bool,
    track_name: str | None,
    track_path: Path | None,
    track_params: str,
    challenge: str | None,
    test_mode: bool,
    **options: Any,
) -> None:
    """Fetch an Elasticsearch (or OpenSearch) distribution into the cache and print the archive's path;
    with --track or --track-path, fetch (download, decompress, index) its corpora and print their files."""
    source = pop_track_source(options)
    team_options = ("team_path", "team_repository", "team_revision", "elasticsearch_plugins")
    if any(options.get(k) for k in team_options):
        raise UserError(
            "download fetches a distribution or a track's corpora; --team-path, --team-repository, "
            "--team-revision and --elasticsearch-plugins shape an installation: give them to install, "
            "start or race."
        )
    if not (track_name or track_path):
        settings = _pin(provision_settings(**options, offline=offline))
        click.echo(str(download_archive(settings)))
        return
    from esbench.corpus import corpora_read, prepare_corpora
    from esbench.track.loader import load_track
    from esbench.track.params import parse_track_params

    version = options.get("distribution_version")
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
    prepared = prepare_corpora(track, corpus_names=names, offline=offline, progress=_err)
    for ready in prepared.all():
        click.echo(f"{ready.corpus}\t{ready.document_count}\t{ready.path}")


@main.command()
@provision_options
@_offline
def install(offline: bool, **options: Any) -> None:
    """Install Elasticsearch or OpenSearch (no node is started) and print the installation id."""
    from esbench.provision import cluster

    settings = _pin(provision_settings(**options, offline=offline))
    inst = cluster.install(settings)
    _err(
        f"Installed {get_flavor(inst.distribution_flavor).product} {inst.version} "
        f"(car {inst.car['name']}, {len(inst.nodes)} node(s)) "
        f"in {inst.root}."
    )
    click.echo(inst.id)


@main.command()
@_installation_id
@provision_options
@_offline
def start(installation_id: str | None, offline: bool, **options: Any) -> None:
    """Start an installation (or install and start one) and print its endpoints and installation id."""
    from esbench.provision import cluster
    from esbench.provision.security import SecurityMaterial

    settings = provision_settings(**options, offline=offline)
    began = time.monotonic()
    if installation_id:
        inst = installation.load(installation_id)
        started = cluster.start(inst, timeout=settings.start_timeout, stop_timeout=settings.stop_timeout)
    else:
        pc = cluster.provision_cluster(_pin(settings), race_dir=None)
        started = pc.installation
    _err(
        f"Started {get_flavor(started.distribution_flavor).product} {started.version} "
        f"(car {started.car['name']}, {len(started.nodes)} node(s)) "
        f"in {time.monotonic() - began:.1f} s; the cluster is green."
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
            f"--client-options=\"use_ssl:true,ca_certs:'{security.ca_cert}'\""
        )


@main.command()
@_installation_id
@click.option(
    "--preserve-install",
    is_flag=True,
    default=False,
    help="Keep the installation (config, data, logs) after the nodes stop.",
)
def stop(installation_id: str | None, preserve_install: bool) -> None:
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
    pids = cluster.stop(inst, preserve_install=preserve_install)
    kept = f"kept in {inst.root}" if preserve_install else "deleted"
    _err(f"Stopped installation {inst.id} ({len(pids)} process(es)); installation {kept}.")
    click.echo(inst.id)


_TEAM_LIST_OPTIONS = (
    click.option(
        "--team-path",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        default=None,
        help="List the cars of this rally-teams checkout instead of esbench's built-in ones.",
    ),
    click.option("--team-repository", default=None, help="List the cars of this named team repository."),
    click.option("--team-revision", default=None, help="Commit, tag or branch of the team repository."),
    click.option("--distribution-version", default=None, help="Picks the team repository's branch."),
    click.option("--offline", is_flag=True, default=False, help="Do not fetch the team repository."),
)


def _team_list_options(f: Any) -> Any:
    for option in reversed(_TEAM_LIST_OPTIONS):
        f = option(f)
    return f


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
@_team_list_options
def list_cars_command(**team: Any) -> None:
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
@_team_list_options
def list_plugins_command(**team: Any) -> None:
    """List the plugins and plugin configurations of a team (--team-path, --team-repository; by default
    the team repository 'default', rally-teams, as Rally does)."""
    from esbench.provision.plugins import list_plugins

    if not (team["team_path"] or team["team_repository"] or team["team_revision"]):
        team["team_repository"] = "default"
    directory = _listed_team(**team)
    assert directory is not None  # a team option is set
    rows = list_plugins(directory)
    click.echo(tabulate(rows, headers=["Name", "Configuration"], tablefmt="simple"))


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
