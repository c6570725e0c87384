"""Team repositories: named git repositories in the rally-teams layout, as Rally has them.

``--team-repository=NAME`` (default ``default``) takes its URL from the ``[teams]`` section of
``<esbench home>/esbench.ini`` (Rally: ``~/.rally/rally.ini``, same keys)::

    [teams]
    default.url = https://github.com/elastic/rally-teams
    mirror.url = file:///srv/git/rally-teams.git

The clone lives in ``<esbench home>/benchmarks/teams/NAME`` (Rally: ``~/.rally/benchmarks/teams/NAME``).
Each use fetches (unless offline), then checks out, in Rally's order (``esrally/mechanic/team.py``
``team_path``, ``esrally/utils/repo.py`` ``RallyRepository``): an explicit ``--team-revision`` (commit,
tag or branch); else the remote branch :func:`esbench.track.versions.best_match` picks for the
distribution version (``8.8.2`` -> ``8``, where rally-teams has ``8`` but no ``8.8``); else such a local
branch; else a ``v<version>`` tag. Offline nothing is fetched; the branches of the last fetch still
count. ``--team-path`` bypasses all of this.
"""

from __future__ import annotations

from pathlib import Path

from esbench.home import esbench_home
from esbench.track import gitrepo

DEFAULT_REPOSITORY = gitrepo.DEFAULT_REPOSITORY
#: Rally's default team repository.
DEFAULT_URL = "https://github.com/elastic/rally-teams"

KIND = gitrepo.RepositoryKind(
    noun="team",
    section="teams",
    default_url=DEFAULT_URL,
    directory="teams",
    pick_hint="--team-revision",
    # Offline too: the remote-tracking branches of the last fetch are there (Rally checks them out).
    choose_offline=True,
    no_checkout=False,
)


def repository_url(name: str) -> str:
    """The URL of the team repository ``name`` (``[teams] NAME.url`` of esbench.ini).

    Raises:
        NotFound: no URL is configured for ``name`` (``default`` has Rally's built-in URL).
    """
    return gitrepo.configured_url(name, esbench_home() / "esbench.ini", KIND)


def team_checkout(
    name: str | None, *, revision: str | None, distribution_version: str | None, offline: bool
) -> tuple[Path, str]:
    """Clone or update the team repository ``name`` and check out what fits (module doc).

    Returns ``(checkout directory, commit)``.

    Raises:
        NotFound: ``name`` has no configured URL.
        DataError: no clone offline, the clone or checkout fails, or nothing fits the version; the
            message names the URL, the directory and what to do.
    """
    name = name or DEFAULT_REPOSITORY
    url = repository_url(name)
    directory = esbench_home() / "benchmarks" / KIND.directory / name
    gitrepo.clone_or_fetch(
        name,
        url,
        directory,
        offline=offline,
        kind=KIND,
        offline_hint=f"Clone it by hand (git clone {url} {directory}), or give a checkout with --team-path.",
        clone_hint=(
            f"Check the network and the URL ([teams] {name}.url in esbench.ini), or give a local checkout "
            "with --team-path."
        ),
    )
    head = gitrepo.check_out(
        name,
        url,
        directory,
        kind=KIND,
        revision=revision,
        distribution_version=distribution_version,
        offline=offline,
    )
    return directory, head
