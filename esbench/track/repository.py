"""Track repositories: git repositories of tracks in the rally-tracks layout, as Rally has them.

A repository is named (``--track-repository=NAME``, default ``default``) and its URL comes from the
``[tracks]`` section of ``<esbench home>/esbench.ini`` (Rally: ``~/.rally/rally.ini``, same keys)::

    [tracks]
    default.url = https://github.com/elastic/rally-tracks
    mirror.url = file:///srv/git/rally-tracks.git

Any URL git understands works (``https://``, ``ssh://``, ``file://``, a path). The clone lives in
``<esbench home>/benchmarks/tracks/NAME`` (Rally: ``~/.rally/benchmarks/tracks/NAME``). Each use
fetches (unless offline), then checks out, in Rally's order (``esrally/utils/repo.py``
``RallyRepository.update``): an explicit ``--track-revision`` (commit, tag or branch) or
``--track-branch``; else the remote branch that :func:`esbench.track.versions.best_match` picks for the
distribution version; else such a local branch; else a ``v<version>`` tag. Offline, nothing is fetched,
the local clone must exist and is used as it is (only an explicit revision or branch is checked out).

git is run as the ``git`` binary (no prompt for credentials, bounded in time).

**OSB's workload repositories.** Where the command line is an OpenSearch Benchmark user's (OSB's
command names or spellings, :class:`RepositoryPeer`), a name means a workload of OSB's repository,
as OSB 2.4.0 has it (``osbenchmark/workload/loader.py`` ``GitWorkloadRepository``,
``osbenchmark/utils/repo.py`` ``BenchmarkRepository.update``): the URL is ``[workloads] NAME.url``
(``default``: https://github.com/opensearch-project/opensearch-benchmark-workloads, OSB's
``osbenchmark/resources/benchmark.ini``), the clone lives in ``<esbench home>/benchmarks/workloads/NAME``,
a workload is a top-level directory with a ``workload.json``, the branch for a version follows OSB's
rule (``main`` as the last resort, :data:`esbench.track.versions.OSB_BRANCHES`), and offline the
branch is still chosen from the last fetch (OSB checks out even offline).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from esbench.exceptions import DataError, NotFound
from esbench.home import esbench_home
from esbench.track import gitrepo
from esbench.track.versions import OSB_BRANCHES

logger = logging.getLogger(__name__)

DEFAULT_REPOSITORY = gitrepo.DEFAULT_REPOSITORY
#: Rally's default track repository.
DEFAULT_URL = "https://github.com/elastic/rally-tracks"
CONFIG_FILE = "esbench.ini"

KIND = gitrepo.RepositoryKind(
    noun="track",
    section="tracks",
    default_url=DEFAULT_URL,
    directory="tracks",
    pick_hint="--track-branch or --track-revision",
    # Rally: offline, the clone is used as it is (no branch switch).
    choose_offline=False,
    no_checkout=True,
)
#: OSB 2.4.0's default workload repository (``osbenchmark/resources/benchmark.ini`` ``[workloads]``).
OSB_DEFAULT_URL = "https://github.com/opensearch-project/opensearch-benchmark-workloads"
OSB_KIND = gitrepo.RepositoryKind(
    noun="workload",
    section="workloads",
    default_url=OSB_DEFAULT_URL,
    directory="workloads",
    pick_hint="--workload-revision or --track-branch",
    # OSB: offline, the branch for the version is still checked out from the last fetch.
    choose_offline=True,
    no_checkout=True,
    branches=OSB_BRANCHES,
    definition_file="workload.json",
    nested=False,
)


class RepositoryPeer(StrEnum):
    """Whose repository a name given on the command line means: Rally's track repositories (``--track``,
    esbench's and Rally's command names) or OSB's workload repositories (``--workload``, ``run``,
    ``list workloads``); the CLI decides (:func:`esbench.cli._osb_names.is_osb_command_line`)."""

    RALLY = "rally"
    OSB = "osb"


#: The kind of repository each peer names.
KINDS: dict[RepositoryPeer, gitrepo.RepositoryKind] = {
    RepositoryPeer.RALLY: KIND,
    RepositoryPeer.OSB: OSB_KIND,
}


def config_path() -> Path:
    """``<esbench home>/esbench.ini``."""
    return esbench_home() / CONFIG_FILE


def repository_url(name: str, kind: gitrepo.RepositoryKind = KIND) -> str:
    """The URL of the track repository ``name`` (``[tracks] NAME.url`` of esbench.ini; OSB's
    workload repositories: ``[workloads] NAME.url``).

    Raises:
        NotFound: no URL is configured for ``name`` (``default`` has Rally's or OSB's built-in URL).
    """
    return gitrepo.configured_url(name, config_path(), kind)


@dataclass(frozen=True)
class TrackRepository:
    """A local clone of a track repository.

    Attributes:
        name: the repository's name (``--track-repository``).
        url: its git URL.
        directory: the clone, ``<esbench home>/benchmarks/tracks/<name>``.
        revision: the commit checked out (40 hex digits), or "" before :meth:`check_out`.
        kind: Rally's track repository (:data:`KIND`) or OSB's workload repository (:data:`OSB_KIND`).
    """

    name: str
    url: str
    directory: Path
    revision: str = ""
    kind: gitrepo.RepositoryKind = KIND

    def track_names(self) -> list[str]:
        """Names of the tracks in the clone, sorted: directories with a track.json at any depth
        (``elastic/logs``; Rally's ``GitTrackRepository.track_names``), or for OSB's repository the
        top-level directories with a workload.json (OSB's ``GitWorkloadRepository.workload_names``)."""
        definition = self.kind.definition_file
        if not self.kind.nested:
            return sorted(
                d.name for d in self.directory.iterdir() if d.name != ".git" and (d / definition).is_file()
            )
        return sorted(
            p.parent.relative_to(self.directory).as_posix()
            for p in self.directory.rglob(definition)
            if ".git" not in p.parts and p.parent != self.directory
        )

    def track_dir(self, track: str) -> Path:
        """The directory of ``track`` in the clone.

        Raises:
            NotFound: the repository has no such track; the message lists its tracks.
        """
        root = self.directory / track
        found = (root / self.kind.definition_file).is_file()
        if found and (self.kind.nested or "/" not in track.strip("/")):
            return root
        names = ", ".join(self.track_names()) or "(none)"
        noun = self.kind.noun
        raise NotFound(
            f"The {noun} repository '{self.name}' ({self.url}, revision {self.revision[:12] or '?'}) has no "
            f"{noun} '{track}'. Its {noun}s: {names}."
        )


def clone_directory(name: str, kind: gitrepo.RepositoryKind = KIND) -> Path:
    """Where the clone of the repository ``name`` lives: ``<esbench home>/benchmarks/tracks/NAME``
    (Rally's ``~/.rally/benchmarks/tracks/NAME``), or ``.../workloads/NAME`` for OSB's repository
    (OSB's ``~/.benchmark/benchmarks/workloads/NAME``)."""
    return esbench_home() / "benchmarks" / kind.directory / name


def open_repository(
    name: str = DEFAULT_REPOSITORY, *, offline: bool = False, kind: gitrepo.RepositoryKind = KIND
) -> TrackRepository:
    """Clone the repository ``name`` if needed, else fetch it (never when ``offline``).

    A failed fetch of an existing clone is a warning (the local state is used, as in Rally).

    Raises:
        NotFound: ``name`` has no configured URL.
        DataError: the clone fails, or there is no clone and ``offline`` is set; the message names
            the URL, the directory and what to do.
    """
    url = repository_url(name, kind)
    directory = clone_directory(name, kind)
    gitrepo.clone_or_fetch(
        name,
        url,
        directory,
        offline=offline,
        kind=kind,
        offline_hint=f"Run once without --offline, or clone it by hand: git clone {url} {directory}",
        clone_hint=(
            f"Check the network and the URL ([{kind.section}] {name}.url in '{config_path()}'). To work "
            "without network: give the track's directory with --track-path, race a bundle made "
            "elsewhere (`esbench bundle --track=NAME --output=FILE.tar`, then --track-bundle=FILE.tar "
            f"--offline), or clone the repository by hand into '{directory}' and add --offline."
        ),
    )
    return TrackRepository(name=name, url=url, directory=directory, kind=kind)


def check_out(
    repo: TrackRepository,
    *,
    revision: str | None = None,
    branch: str | None = None,
    distribution_version: str | None = None,
    offline: bool = False,
) -> TrackRepository:
    """Check out what the race asks for (module doc) and return the repository with its revision.

    Raises:
        DataError: the revision or branch does not exist, or nothing fits the distribution version.
    """
    head = gitrepo.check_out(
        repo.name,
        repo.url,
        repo.directory,
        kind=repo.kind,
        revision=revision,
        branch=branch,
        distribution_version=distribution_version,
        offline=offline,
    )
    return TrackRepository(
        name=repo.name, url=repo.url, directory=repo.directory, revision=head, kind=repo.kind
    )


def is_local_track(name: str) -> bool:
    """True if ``--track=name`` is a built-in track or one under ``<esbench home>/tracks`` (a
    ``track.json`` or an OSB ``workload.json``, as :func:`esbench.track.loader.locate_track` finds them)."""
    from esbench.track.loader import track_search_dirs

    files = (KIND.definition_file, OSB_KIND.definition_file)
    return any((base / name / f).is_file() for base in track_search_dirs() for f in files)


def close_track_names(name: str, candidates: list[str]) -> list[str]:
    """Up to three of ``candidates`` close to ``name`` (a typo: ``evendata`` -> ``eventdata``), best
    first, by :func:`difflib.get_close_matches` (ratio >= 0.8, so unrelated names are not suggested)."""
    import difflib

    return difflib.get_close_matches(name, candidates, n=3, cutoff=0.8)


def _cloned_track_names(repository: str) -> list[str]:
    """Track names of an existing clone of Rally's repository, read from its files (no git), or []
    without a clone."""
    directory = clone_directory(repository)
    if not (directory / ".git").exists():
        return []
    return TrackRepository(name=repository, url="", directory=directory).track_names()


def repository_track(
    name: str,
    *,
    repository: str | None = None,
    revision: str | None = None,
    branch: str | None = None,
    offline: bool = False,
    distribution_version: Callable[[], str | None] = lambda: None,
    kind: gitrepo.RepositoryKind = KIND,
) -> tuple[Path, TrackRepository]:
    """The directory of track ``name`` in a track repository (``kind``: Rally's or OSB's), checked
    out for the race.

    ``distribution_version`` is called only when neither ``revision`` nor ``branch`` is given
    (from-distribution: the version to provision; benchmark-only: the target cluster's version).

    Raises:
        NotFound / DataError: see :func:`open_repository`, :func:`check_out` and
            :meth:`TrackRepository.track_dir`.
    """
    repo = open_repository(repository or DEFAULT_REPOSITORY, offline=offline, kind=kind)
    version = None if (revision or branch) else distribution_version()
    repo = check_out(repo, revision=revision, branch=branch, distribution_version=version, offline=offline)
    return repo.track_dir(name), repo


@dataclass(frozen=True)
class TrackRepositorySettings:
    """Where a named track comes from (``--track-repository``, ``--track-revision``, ``--track-branch``).

    Rally's usage (``peer`` RALLY), all None: a built-in or user track of that name, else the
    ``default`` repository with the branch chosen from the distribution version. The built-in tracks
    win because Rally's repository (rally-tracks) has no track of their names: Rally 2.13 fails on
    ``--track=eventdata``, which rally-eventdata-track serves through ``--track-repository``
    (docs/tracks.md, "Which track a name means").

    OSB's usage (``peer`` OSB): a name always means a workload of OSB's repository (``default``:
    opensearch-benchmark-workloads), as OSB 2.4.0 has no other (``osbenchmark/workload/loader.py``
    ``workload_repo``); esbench's built-in and user tracks are reached with Rally's ``--track``.
    """

    repository: str | None = None
    revision: str | None = None
    branch: str | None = None
    peer: RepositoryPeer = RepositoryPeer.RALLY

    @property
    def kind(self) -> gitrepo.RepositoryKind:
        """Rally's track repository kind, or OSB's workload repository kind."""
        return KINDS[self.peer]

    def open_checked_out(self, *, offline: bool, distribution_version: str | None) -> TrackRepository:
        """The named repository (``default`` when none is named), cloned or fetched and checked out
        for the revision, branch or ``distribution_version`` (``list tracks``: Rally's
        ``esrally/track/loader.py`` ``tracks`` reads the repository the same way).

        Raises:
            NotFound / DataError: see :func:`open_repository` and :func:`check_out`.
        """
        repo = open_repository(self.repository or DEFAULT_REPOSITORY, offline=offline, kind=self.kind)
        return check_out(
            repo,
            revision=self.revision,
            branch=self.branch,
            distribution_version=None if (self.revision or self.branch) else distribution_version,
            offline=offline,
        )

    def resolve(
        self, name: str, *, offline: bool, distribution_version: Callable[[], str | None]
    ) -> tuple[Path | None, TrackRepository | None]:
        """``(track directory, repository)`` for ``--track=name``, or ``(None, None)`` when the name
        is a local track, no repository option was given and the usage is Rally's (the loader
        resolves it as before).

        Raises:
            NotFound / DataError: see :func:`repository_track`; the message says why a repository
                was asked when the user named none.
        """
        explicit = self.repository or self.revision or self.branch
        osb = self.peer is RepositoryPeer.OSB
        if not explicit and not osb:
            if is_local_track(name):
                return None, None
            self._refuse_typo(name)
        try:
            return repository_track(
                name,
                repository=self.repository,
                revision=self.revision,
                branch=self.branch,
                offline=offline,
                distribution_version=distribution_version,
                kind=self.kind,
            )
        except (DataError, NotFound) as e:
            if osb and not explicit:
                raise type(e)(
                    f"'{name}' was named as OpenSearch Benchmark names a workload (--workload, or OSB's "
                    f"command names run and list workloads), so esbench looked for it in OSB's workload "
                    f"repository '{DEFAULT_REPOSITORY}', as OSB does. {e} An esbench built-in or user track "
                    f"of that name is raced with Rally's spelling: esbench race --track={name}.",
                    e,
                ) from e
            if explicit or isinstance(e, NotFound):
                raise
            # Say why a repository was asked at all: the user typed a name, not a repository.
            raise DataError(
                f"Track '{name}' is neither built in nor under '{esbench_home() / 'tracks'}' (see "
                f"`esbench list tracks`), so esbench looked for it in the track repository "
                f"'{DEFAULT_REPOSITORY}'. {e}",
                e,
            ) from e

    @staticmethod
    def _refuse_typo(name: str) -> None:
        """Raise before git runs when ``name`` is no local track but close to one, and an existing
        clone of the default repository (read without git) does not hold it either.

        Raises:
            NotFound: "unknown track 'evendata'; did you mean 'eventdata'?" and how to reach a
                repository track of that name anyway.
        """
        from esbench.track.loader import available_tracks

        cloned = _cloned_track_names(DEFAULT_REPOSITORY)
        if name in cloned:
            return
        close = close_track_names(name, [t.name for t in available_tracks()] + cloned)
        if not close:
            return
        options = " or ".join(f"'{c}'" for c in close)
        raise NotFound(
            f"Unknown track '{name}'; did you mean {options}? It is neither built in nor under "
            f"'{esbench_home() / 'tracks'}' (see `esbench list tracks`). If '{name}' is a track of a track "
            "repository, name the repository (--track-repository=default) and esbench will look there."
        )
