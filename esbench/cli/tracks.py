"""Track commands: ``esbench render-track``, ``esbench info``, ``esbench list tracks``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from esbench.cli import list_group, main
from esbench.cli._osb_names import called_as_osb
from esbench.cli._track_source import pop_track_source
from esbench.cli.options import table_options
from esbench.console import tabulate
from esbench.exceptions import ConfigError, EsbenchError, UserError
from esbench.track.model import Challenge, Parallel, Task, Track
from esbench.track.params import parse_track_params
from esbench.track.repository import (
    DEFAULT_REPOSITORY,
    RepositoryPeer,
    TrackRepository,
    TrackRepositorySettings,
    clone_directory,
)
from esbench.tracksource import TRACK_FILE_RULE, TrackByName, choose_track_source


def resolve_source(
    track_name: str | None, track_path: Path | None, options: dict[str, Any]
) -> tuple[dict[str, Any], TrackRepository | None]:
    """``name``/``path`` keywords for the loader and the track repository they came from (if any);
    pops the track options of the option table (``--track-repository``, ``--offline``...). A
    repository track is checked out first."""
    source = choose_track_source(
        name=track_name, path=track_path, repository=pop_track_source(options), rule=TRACK_FILE_RULE
    )
    offline, version = options.pop("offline", False), options.pop("distribution_version", None)
    if isinstance(source, TrackByName):
        track_dir, repo = source.repository.resolve(
            source.name, offline=offline, distribution_version=lambda: version
        )
        if track_dir is not None:
            return {"name": None, "path": track_dir}, repo
    return {"name": track_name, "path": track_path}, None


def _source(track_name: str | None, track_path: Path | None, options: dict[str, Any]) -> dict[str, Any]:
    return resolve_source(track_name, track_path, options)[0]


def _size(n: int | None) -> str:
    # Binary units, like Rally's console output.
    if n is None:
        return "n/a"
    value = float(n)
    for unit in ("bytes", "kB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _count(n: int | None) -> str:
    return "n/a" if n is None else f"{n:,}"


def _total(values: list[int | None]) -> int | None:
    return None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)


def _seconds(value: float | None) -> str:
    return f"{value:g} s"


def _warmup(task: Task) -> str:
    if task.warmup_iterations is not None:
        return f"{task.warmup_iterations} iterations"
    if task.warmup_time_period is not None:
        return _seconds(task.warmup_time_period)
    return "-"


def _measure(task: Task) -> str:
    if task.iterations is not None:
        return f"{task.iterations} iterations"
    if task.time_period is not None:
        return _seconds(task.time_period)
    return "until done"


def _throughput(task: Task) -> str:
    if task.target_interval is not None:
        return f"1 every {task.target_interval:g} s"
    if task.target_throughput is not None:
        return f"{task.target_throughput.value:g} {task.target_throughput.unit}"
    return "unthrottled"


def _task_row(number: str, task: Task) -> list[str]:
    name = task.name
    if task.completes_parent:
        name += " (completes block)"
    return [
        number,
        name,
        task.operation.operation_type,
        str(task.clients),
        _warmup(task),
        _measure(task),
        _throughput(task),
        "yes" if task.operation.include_in_reporting else "no",
    ]


def _schedule_table(challenge: Challenge) -> str:
    rows: list[list[str]] = []
    for i, item in enumerate(challenge.schedule, start=1):
        if isinstance(item, Parallel):
            details = []
            if any(t.any_completes_parent for t in item.tasks):
                details.append("completed-by: any")
            if item.clients is not None:
                details.append(f"max {item.clients} clients")
            rows.append([f"{i}.", "(parallel)", "; ".join(details), "", "", "", "", ""])
            rows.extend(_task_row(f"{i}.{j}", t) for j, t in enumerate(item.tasks, start=1))
        else:
            rows.append(_task_row(f"{i}.", item))
    headers = [
        "#",
        "Task",
        "Operation type",
        "Clients",
        "Warmup",
        "Measurement",
        "Target throughput",
        "Reported",
    ]
    return tabulate(rows, headers=headers, tablefmt="simple")


def _corpora_lines(track: Track) -> list[str]:
    rows = []
    all_docs = [d for c in track.corpora for d in c.documents]
    for corpus in track.corpora:
        docs = corpus.documents
        rows.append(
            [
                corpus.name,
                len(docs),
                _count(_total([d.document_count for d in docs])),
                _size(_total([d.compressed_bytes for d in docs])),
                _size(_total([d.uncompressed_bytes for d in docs])),
            ]
        )
    if len(track.corpora) > 1:
        rows.append(
            [
                "(total)",
                len(all_docs),
                _count(_total([d.document_count for d in all_docs])),
                _size(_total([d.compressed_bytes for d in all_docs])),
                _size(_total([d.uncompressed_bytes for d in all_docs])),
            ]
        )
    table = tabulate(rows, headers=["Corpus", "Files", "Documents", "Compressed size", "Uncompressed size"])
    return table.splitlines()


def _challenge_block(challenge: Challenge) -> list[str]:
    title = f"Challenge [{challenge.name}]" + (" (run by default)" if challenge.default else "")
    lines = ["=" * len(title), title, "=" * len(title), ""]
    if challenge.description:
        lines += [challenge.description, ""]
    if challenge.user_info:
        lines += [f"Note: {challenge.user_info}", ""]
    lines += ["Schedule:", "---------", "", _schedule_table(challenge), ""]
    return lines


def track_info_text(track: Track, *, challenge: str | None = None, exposed: list[str] | None = None) -> str:
    """The text ``esbench info`` prints for ``track`` (all challenges, or only ``challenge``).

    Raises:
        NotFound: ``challenge`` is not a challenge of the track.
    """
    lines = [f"Showing details for track [{track.name}]:", "", f"* Description: {track.description}"]
    if exposed is not None:
        lines.append(f"* Track params: {', '.join(exposed) if exposed else '(none)'}")
    if track.params:
        given = ", ".join(f"{k}={v!r}" for k, v in sorted(track.params.items()))
        lines.append(f"* Rendered with: {given}")
    lines.append("")
    if track.corpora:
        lines += [*_corpora_lines(track), ""]
    selected = [track.find_challenge(challenge)] if challenge is not None else list(track.challenges)
    for c in selected:
        lines += _challenge_block(c)
    return "\n".join(lines).rstrip() + "\n"


def filtered_track(
    track: Track, include_tasks: str, exclude_tasks: str, challenge: str | None = None
) -> Track:
    """``track`` with the schedule of each challenge (only ``challenge``'s, when given) filtered as
    ``--include-tasks``/``--exclude-tasks`` filter a race's (Rally's ``info`` filters the track the same
    way). A challenge none of whose tasks the include filters match is shown with an empty schedule.

    Raises:
        ConfigError: bad filters, or include filters that match no task of any challenge shown.
    """
    from dataclasses import replace

    from esbench.driver.coordinator.filters import filter_schedule

    include, exclude = (
        tuple(s.strip() for s in text.split(",") if s.strip()) for text in (include_tasks, exclude_tasks)
    )
    if not include and not exclude:
        return track
    shown = [c for c in track.challenges if challenge is None or c.name == challenge]
    filtered, first_error = {}, None
    for c in shown:
        try:
            filtered[c.name] = filter_schedule(c, include=include, exclude=exclude)
        except ConfigError as e:
            first_error = first_error or e
            filtered[c.name] = replace(c, schedule=())
    if first_error is not None and all(not f.schedule for f in filtered.values()):
        raise first_error
    return replace(track, challenges=tuple(filtered.get(c.name, c) for c in track.challenges))


@main.command("render-track")
@table_options("render-track")
def render_track_command(
    track_name: str | None,
    track_path: Path | None,
    track_params: str,
    output_path: Path | None,
    build_flavor: str,
    serverless_operator: bool,
    quiet: bool,
    **source_options: Any,
) -> None:
    """Print a track's rendered track.json (Jinja templates and collected parts resolved), like Rally."""
    from esbench.track.loader import render_track_source

    text = render_track_source(
        **_source(track_name, track_path, source_options),
        params=parse_track_params(track_params),
        build_flavor=build_flavor,
        serverless_operator=serverless_operator,
    )
    if output_path is None:
        click.echo(text)
        return
    try:
        output_path.write_text(text + "\n", encoding="utf-8")
    except OSError as e:
        raise UserError(
            f"Cannot write the rendered track to '{output_path}': {e.strerror}. Check --output-path."
        ) from e
    if not quiet:
        click.echo(f"Rendered track has been written to [{output_path}].", err=True)


@main.command("info")
@table_options("info")
def info_command(
    track_name: str | None,
    track_path: Path | None,
    track_params: str,
    challenge: str | None,
    test_mode: bool,
    target_hosts: str | None,
    client_options: str,
    include_tasks: str,
    exclude_tasks: str,
    quiet: bool,
    **source_options: Any,
) -> None:
    """Show a track's description, corpora, challenges, schedules and the modules it needs
    (--include-tasks/--exclude-tasks: only the tasks a race with them would run)."""
    from esbench.track.loader import load_track, track_parameter_names

    source = _source(track_name, track_path, source_options)
    params = parse_track_params(track_params)
    track = filtered_track(
        load_track(**source, params=params, test_mode=test_mode), include_tasks, exclude_tasks, challenge
    )
    exposed = track_parameter_names(**source, params=params)
    click.echo(track_info_text(track, challenge=challenge, exposed=exposed), nl=False)
    from esbench.racecontrol.prepare import operation_type_warnings

    for warning in operation_type_warnings(track, challenge):
        click.echo(warning, err=True)
    click.echo("")
    click.echo(_requirements_section(track, challenge, target_hosts, client_options), nl=False)


def _requirements_section(
    track: Track, challenge: str | None, target_hosts: str | None, client_options: str
) -> str:
    from esbench.driver.transport.client import parse_client_options
    from esbench.requirements import check_requirements, probe_cluster, track_needs
    from esbench.requirements.text import requirements_text

    selected = track.find_challenge(challenge) if challenge is not None else None
    needs = track_needs(track, challenge=selected)
    hosts = [h.strip() for h in (target_hosts or "").split(",") if h.strip()]
    if not hosts:
        return requirements_text(needs)
    capabilities = probe_cluster(hosts, parse_client_options(client_options))
    return requirements_text(needs, check_requirements(needs, capabilities))


@list_group.command("tracks")
@table_options("list tracks")
def list_tracks_command(track_path: Path | None, **options: Any) -> None:
    """List the built-in tracks, the tracks in <esbench home>/tracks and the tracks of the track
    repository (the default one, rally-tracks, on the branch for --distribution-version, or the one
    --track-repository/--track-revision/--track-branch name), with Rally's columns; with --track-path
    only that track. As OSB's list workloads: the workloads of OSB's repository, OSB's columns."""
    from esbench.track.listing import TrackEntry, osb_track_listing, track_listing
    from esbench.track.loader import TrackLocation, available_tracks, load_track, locate_track

    settings = pop_track_source(options)
    if track_path is not None:
        locations = [locate_track(path=track_path)]
    else:
        # OSB lists its repository's workloads only (osbenchmark/workload/loader.py list_workloads);
        # Rally its repository's tracks (esrally/track/loader.py list_tracks), esbench its own first.
        locations = [] if settings.peer is RepositoryPeer.OSB else list(available_tracks())
        repo = _listed_repository(
            settings, offline=options["offline"], version=options["distribution_version"]
        )
        named = {location.name for location in locations}
        if repo is not None:
            for name in repo.track_names():
                if name not in named:  # a built-in track of that name wins, as --track resolves it
                    root = repo.track_dir(name)
                    track_file = root / repo.kind.definition_file
                    locations.append(TrackLocation(name=name, root=root, track_file=track_file))
    entries = []
    for location in locations:
        try:
            entries.append(TrackEntry(name=location.name, track=load_track(path=location.root)))
        except EsbenchError as e:
            entries.append(TrackEntry(name=location.name, error=e))
    osb = called_as_osb()
    if not entries:
        click.echo("No tracks found. Put a track directory (with track.json) under <esbench home>/tracks.")
        return
    # As OSB's list workloads: OSB's words, columns and sizes (osbenchmark/workload/loader.py).
    listing = osb_track_listing(entries) if osb else track_listing(entries)
    click.echo("Available workloads:\n" if osb else "Available tracks:\n")
    click.echo(
        tabulate(
            [list(r) for r in listing.rows],
            headers=list(listing.headers),
            colalign=listing.align,
            disable_numparse=True,
        )
    )


def _listed_repository(
    settings: TrackRepositorySettings, *, offline: bool, version: str | None
) -> TrackRepository | None:
    """The repository ``list tracks`` lists, checked out for ``version`` (Rally 2.13
    ``esrally/track/loader.py`` ``tracks``: the default repository unless one is named, on the branch
    for ``--distribution-version``). Rally's default repository that cannot be reached (no network,
    or ``--offline`` without a clone) is a warning: the built-in and user tracks are still listed.

    Raises:
        EsbenchError: a repository the command line names, or OSB's (its workloads are all that
            ``list workloads`` lists), cannot be cloned or checked out.
    """
    explicit = settings.repository or settings.revision or settings.branch
    tolerated = not explicit and settings.peer is RepositoryPeer.RALLY
    directory = clone_directory(DEFAULT_REPOSITORY, settings.kind)
    if tolerated and offline and not (directory / ".git").exists():
        click.echo(
            f"[INFO] The tracks of the track repository '{DEFAULT_REPOSITORY}' are not listed: --offline "
            f"and no clone in '{directory}' (run once without --offline).",
            err=True,
        )
        return None
    try:
        return settings.open_checked_out(offline=offline, distribution_version=version)
    except EsbenchError as e:
        if not tolerated:
            raise
        click.echo(
            f"[WARNING] The tracks of the track repository '{DEFAULT_REPOSITORY}' are not listed: {e}",
            err=True,
        )
        return None
