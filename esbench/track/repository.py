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
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from esbench.exceptions import DataError, NotFound
from esbench.home import esbench_home
from esbench.track import gitrepo

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


def config_path() -> Path:
    """``<esbench home>/esbench.ini``."""
    return esbench_home() / CONFIG_FILE


def repository_url(name: str) -> str:
    """The URL of the track repository ``name`` (``[tracks] NAME.url`` of esbench.ini).

    Raises:
        NotFound: no URL is configured for ``name`` (``default`` has Rally's built-in URL).
    """
    return gitrepo.configured_url(name, config_path(), KIND)


@dataclass(frozen=True)
class TrackRepository:
    """A local clone of a track repository.

    Attributes:
        name: the repository's name (``--track-repository``).
        url: its git URL.
        directory: the clone, ``<esbench home>/benchmarks/tracks/<name>``.
        revision: the commit checked out (40 hex digits), or "" before :meth:`check_out`.
    """

    name: str
    url: str
    directory: Path
    revision: str = ""

    def track_names(self) -> list[str]:
        """Names of the tracks in the clone (directories with a track.json, e.g. ``elastic/logs``)."""
        return sorted(
            p.parent.relative_to(self.directory).as_posix()
            for p in self.directory.rglob("track.json")
            if ".git" not in p.parts
        )

    def track_dir(self, track: str) -> Path:
        """The directory of ``track`` in the clone.

        Raises:
            NotFound: the repository has no such track; the message lists its tracks.
        """
        root = self.directory / track
        if (root / "track.json").is_file():
            return root
        names = ", ".join(self.track_names()) or "(none)"
        raise NotFound(
            f"The track repository '{self.name}' ({self.url}, revision {self.revision[:12] or '?'}) has no "
            f"track '{track}'. Its tracks: {names}."
        )


def open_repository(name: str = DEFAULT_REPOSITORY, *, offline: bool = False) -> TrackRepository:
    """Clone the repository ``name`` if needed, else fetch it (never when ``offline``).

    A failed fetch of an existing clone is a warning (the local state is used, as in Rally).

    Raises:
        NotFound: ``name`` has no configured URL.
        DataError: the clone fails, or there is no clone and ``offline`` is set; the message names
            the URL, the directory and what to do.
    """
    url = repository_url(name)
    directory = esbench_home() / "benchmarks" / KIND.directory / name
    gitrepo.clone_or_fetch(
        name,
        url,
        directory,
        offline=offline,
        kind=KIND,
        offline_hint=f"Run once without --offline, or clone it by hand: git clone {url} {directory}",
        clone_hint=(
            f"Check the network and the URL ([tracks] {name}.url in '{config_path()}'). To work "
            "without network: give the track's directory with --track-path, race a bundle made "
            "elsewhere (`esbench bundle --track=NAME --output=FILE.tar`, then --track-bundle=FILE.tar "
            f"--offline), or clone the repository by hand into '{directory}' and add --offline."
        ),
    )
    return TrackRepository(name=name, url=url, directory=directory)


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
        kind=KIND,
        revision=revision,
        branch=branch,
        distribution_version=distribution_version,
        offline=offline,
    )
    return TrackRepository(name=repo.name, url=repo.url, directory=repo.directory, revision=head)


def is_local_track(name: str) -> bool:
    """True if ``--track=name`` is a built-in track or one under ``<esbench home>/tracks``."""
    from esbench.track.loader import track_search_dirs

    return any((base / name / "track.json").is_file() for base in track_search_dirs())


def close_track_names(name: str, candidates: list[str]) -> list[str]:
    """Up to three of ``candidates`` close to ``name`` (a typo: ``evendata`` -> ``eventdata``), best
    first, by :func:`difflib.get_close_matches` (ratio >= 0.8, so unrelated names are not suggested)."""
    import difflib

    return difflib.get_close_matches(name, candidates, n=3, cutoff=0.8)


def _cloned_track_names(repository: str) -> list[str]:
    """Track names of an existing clone, read from its files (no git), or [] without a clone."""
    directory = esbench_home() / "benchmarks" / "tracks" / repository
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
) -> tuple[Path, TrackRepository]:
    """The directory of track ``name`` in a track repository, checked out for the race.

    ``distribution_version`` is called only when neither ``revision`` nor ``branch`` is given
    (from-distribution: the version to provision; benchmark-only: the target cluster's version).

    Raises:
        NotFound / DataError: see :func:`open_repository`, :func:`check_out` and
            :meth:`TrackRepository.track_dir`.
    """
    repo = open_repository(repository or DEFAULT_REPOSITORY, offline=offline)
    version = None if (revision or branch) else distribution_version()
    repo = check_out(repo, revision=revision, branch=branch, distribution_version=version, offline=offline)
    return repo.track_dir(name), repo


@dataclass(frozen=True)
class TrackRepositorySettings:
    """Where a named track comes from (``--track-repository``, ``--track-revision``, ``--track-branch``).

    All None: a built-in or user track of that name, else the ``default`` repository with the branch
    chosen from the distribution version.
    """

    repository: str | None = None
    revision: str | None = None
    branch: str | None = None

    def resolve(
        self, name: str, *, offline: bool, distribution_version: Callable[[], str | None]
    ) -> tuple[Path | None, TrackRepository | None]:
        """``(track directory, repository)`` for ``--track=name``, or ``(None, None)`` when the name
        is a local track and no repository option was given (the loader resolves it as before)."""
        explicit = self.repository or self.revision or self.branch
        if not explicit:
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
            )
        except DataError as e:
            if explicit:
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
