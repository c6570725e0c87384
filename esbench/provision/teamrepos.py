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

import configparser
import logging
import os
import subprocess
from pathlib import Path

from esbench.exceptions import DataError, NotFound
from esbench.home import esbench_home
from esbench.track.versions import best_match, version_variants

logger = logging.getLogger(__name__)

DEFAULT_REPOSITORY = "default"
#: Rally's default team repository.
DEFAULT_URL = "https://github.com/elastic/rally-teams"
#: Seconds a clone or fetch may take before it counts as hanging.
GIT_TIMEOUT_S = 600.0


class _GitFailed(Exception):
    pass


def _git(directory: Path | None, *args: str) -> str:
    cmd = ["git", *(["-C", str(directory)] if directory else []), *args]
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
            check=False,
        )
    except FileNotFoundError as e:
        raise DataError("Team repositories need the 'git' program; install git (apt-get install git).") from e
    except subprocess.TimeoutExpired as e:
        raise DataError(
            f"'git {' '.join(args)}' took more than {GIT_TIMEOUT_S:.0f} s and was stopped."
        ) from e
    if done.returncode != 0:
        raise _GitFailed(done.stderr.strip() or done.stdout.strip() or f"exit code {done.returncode}")
    return done.stdout


def repository_url(name: str) -> str:
    """The URL of the team repository ``name`` (``[teams] NAME.url`` of esbench.ini).

    Raises:
        NotFound: no URL is configured for ``name`` (``default`` has Rally's built-in URL).
    """
    parser = configparser.ConfigParser(interpolation=None)
    path = esbench_home() / "esbench.ini"
    if path.is_file():
        parser.read(path, encoding="utf-8")
    key = f"{name}.url"
    if parser.has_option("teams", key):
        return parser.get("teams", key).strip()
    if name == DEFAULT_REPOSITORY:
        return DEFAULT_URL
    configured = sorted(
        k.removesuffix(".url") for k in (parser.options("teams") if parser.has_section("teams") else [])
    )
    raise NotFound(
        f"Unknown team repository '{name}'. Add its URL to '{path}' as\n[teams]\n{key} = <git URL>\n"
        f"Configured repositories: {', '.join([DEFAULT_REPOSITORY, *configured])}."
    )


def _branches(directory: Path, *, remote: bool) -> list[str]:
    refs = _git(
        directory, "for-each-ref", "--format=%(refname:short)", "refs/remotes/" if remote else "refs/heads/"
    )
    names = []
    for ref in refs.split():
        if remote:
            if "/" not in ref or ref.endswith("/HEAD"):
                continue
            ref = ref.split("/", 1)[1]
        names.append(ref)
    return names


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
    directory = esbench_home() / "benchmarks" / "teams" / name
    cloned = (directory / ".git").exists()
    if not cloned:
        if offline:
            raise DataError(
                f"esbench runs offline but has no clone of the team repository '{name}' in '{directory}'. "
                f"Clone it by hand (git clone {url} {directory}), or give a checkout with --team-path."
            )
        directory.parent.mkdir(parents=True, exist_ok=True)
        try:
            _git(None, "clone", "--quiet", url, str(directory))
        except _GitFailed as e:
            raise DataError(
                f"Could not clone the team repository '{name}' from {url} into '{directory}': {e}. Check the "
                f"network and the URL ([teams] {name}.url in esbench.ini), or give a local checkout with "
                "--team-path."
            ) from e
    elif not offline:
        try:
            _git(directory, "fetch", "--quiet", "--tags", "--prune", "origin")
        except _GitFailed as e:
            logger.warning("could not update team repository %s: %s", name, e)
    try:
        if revision:
            _git(directory, "checkout", "--quiet", revision)
        else:
            # Offline too: the remote-tracking branches of the last fetch are there (Rally checks them out).
            chosen = best_match(_branches(directory, remote=True), distribution_version)
            if chosen is not None:
                _git(directory, "checkout", "--quiet", "-B", chosen, f"origin/{chosen}")
            else:
                chosen = best_match(_branches(directory, remote=False), distribution_version)
                if chosen is None and distribution_version:
                    tags = set(_git(directory, "tag").split())
                    chosen = next(
                        (f"v{v}" for v in version_variants(distribution_version) if f"v{v}" in tags), None
                    )
                if chosen is None:
                    raise DataError(
                        f"The team repository '{name}' ({url}) has no branch or tag for distribution version "
                        f"{distribution_version}. Pick one with --team-revision."
                    )
                _git(directory, "checkout", "--quiet", chosen)
        head = _git(directory, "rev-parse", "HEAD").strip()
    except _GitFailed as e:
        what = f"revision '{revision}'" if revision else f"the branch for version {distribution_version}"
        raise DataError(
            f"Could not check out {what} of the team repository '{name}' in '{directory}': {e}."
        ) from e
    logger.info("team repository %s at %s", name, head)
    return directory, head
