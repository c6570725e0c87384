"""Named git repositories in Rally's layout (rally-tracks, rally-teams): URL, clone, checkout.

Both kinds work alike in Rally (``esrally/utils/repo.py`` ``RallyRepository``): the URL of the
repository ``NAME`` is ``NAME.url`` in a section of the ini (``[tracks]``, ``[teams]``), ``default``
has a built-in URL; the clone is fetched on each use unless offline; then the checkout is, in order,
an explicit revision (commit, tag or branch) or branch, else the remote branch that
:func:`esbench.track.versions.best_match` picks for the distribution version, else such a local
branch, else a ``v<version>`` tag. git runs as the ``git`` binary, never prompting for credentials,
and bounded in time.

:mod:`esbench.track.repository` (tracks) and :mod:`esbench.provision.teamrepos` (teams) are the two
users; they differ only in names, hints and what offline means for the branch choice.
"""

from __future__ import annotations

import configparser
import logging
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from esbench.exceptions import DataError, NotFound
from esbench.track.versions import RALLY_BRANCHES, BranchRule, best_match, version_variants

logger = logging.getLogger(__name__)

#: The repository used when none is named (Rally's ``default``).
DEFAULT_REPOSITORY = "default"
#: Seconds a clone or fetch may take before it counts as hanging.
GIT_TIMEOUT_S = 600.0


class GitFailed(Exception):
    """git exited non-zero; the message is what git printed."""


@dataclass(frozen=True, kw_only=True)
class RepositoryKind:
    """What differs between track and team repositories.

    Attributes:
        noun: ``track`` or ``team``, for messages.
        section: the ini section of the URLs (``tracks``, ``teams``).
        default_url: the URL of the ``default`` repository.
        directory: the clones' parent directory name under ``<home>/benchmarks``.
        pick_hint: how a user picks a revision (``--track-branch or --track-revision``).
        choose_offline: offline, still choose the branch for the distribution version from the
            last fetch (Rally does for teams; for tracks it uses the clone as it is).
        no_checkout: clone without checking out (the checkout follows at once).
        branches: the branch choice for a distribution version (Rally's, or OSB's ``main`` rule).
        definition_file: the file that makes a directory of the clone an entry (``track.json``,
            OSB's ``workload.json``).
        nested: entries may lie at any depth (Rally: ``elastic/logs``); else only the clone's
            top-level directories count (OSB's ``GitWorkloadRepository.workload_names``).
    """

    noun: str
    section: str
    default_url: str
    directory: str
    pick_hint: str
    choose_offline: bool
    no_checkout: bool
    branches: BranchRule = RALLY_BRANCHES
    definition_file: str = "track.json"
    nested: bool = True


def git(directory: Path | None, *args: str, kind: RepositoryKind) -> str:
    """Run ``git [-C directory] args`` and return its stdout.

    Raises:
        GitFailed: git exited non-zero.
        DataError: there is no git program, or the command took more than :data:`GIT_TIMEOUT_S`.
    """
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
        raise DataError(
            f"{kind.noun.capitalize()} repositories need the 'git' program; install git "
            "(e.g. apt-get install git)."
        ) from e
    except subprocess.TimeoutExpired as e:
        raise DataError(
            f"'git {' '.join(args)}' took more than {GIT_TIMEOUT_S:.0f} s and was stopped."
        ) from e
    if done.returncode != 0:
        raise GitFailed(done.stderr.strip() or done.stdout.strip() or f"exit code {done.returncode}")
    return done.stdout


def configured_url(name: str, ini: Path, kind: RepositoryKind) -> str:
    """The URL of the repository ``name``: ``[<section>] NAME.url`` of ``ini``.

    Raises:
        NotFound: no URL is configured for ``name`` (``default`` has Rally's built-in URL); the
            message says where to add it.
    """
    parser = configparser.ConfigParser(interpolation=None)
    if ini.is_file():
        parser.read(ini, encoding="utf-8")
    key = f"{name}.url"
    if parser.has_option(kind.section, key):
        return parser.get(kind.section, key).strip()
    if name == DEFAULT_REPOSITORY:
        return kind.default_url
    keys = parser.options(kind.section) if parser.has_section(kind.section) else []
    configured = sorted(k.removesuffix(".url") for k in keys)
    raise NotFound(
        f"Unknown {kind.noun} repository '{name}'. Add its URL to '{ini}' as\n"
        f"[{kind.section}]\n{key} = <git URL>\n"
        f"Configured repositories: {', '.join([DEFAULT_REPOSITORY, *configured])}."
    )


def clone_or_fetch(
    name: str,
    url: str,
    directory: Path,
    *,
    offline: bool,
    kind: RepositoryKind,
    offline_hint: str,
    clone_hint: str,
) -> None:
    """Clone ``url`` into ``directory`` if there is no clone, else fetch (never when ``offline``).

    A failed fetch of an existing clone is a warning: the local state is used, as in Rally.

    Raises:
        DataError: there is no clone and ``offline`` is set (the message adds ``offline_hint``), or
            the clone fails (``clone_hint``).
    """
    if (directory / ".git").exists():
        if not offline:
            try:
                git(directory, "fetch", "--quiet", "--tags", "--prune", "origin", kind=kind)
            except GitFailed as e:
                logger.warning("could not update %s repository %s: %s", kind.noun, name, e)
        return
    if offline:
        raise DataError(
            f"esbench runs offline but has no clone of the {kind.noun} repository '{name}' in '{directory}'. "
            + offline_hint
        )
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        git(
            None,
            "clone",
            "--quiet",
            *(["--no-checkout"] if kind.no_checkout else []),
            url,
            str(directory),
            kind=kind,
        )
    except GitFailed as e:
        raise DataError(
            f"Could not clone the {kind.noun} repository '{name}' from {url} into '{directory}': {e}. "
            + clone_hint
        ) from e


def branches(directory: Path, *, remote: bool, kind: RepositoryKind) -> list[str]:
    """The clone's branch names: its remote-tracking ones without ``origin/`` (``remote``), or its
    local ones."""
    prefix = "refs/remotes/" if remote else "refs/heads/"
    refs = git(directory, "for-each-ref", "--format=%(refname:short)", prefix, kind=kind)
    names = []
    for ref in refs.split():
        if remote:
            if "/" not in ref or ref.endswith("/HEAD"):
                continue
            ref = ref.split("/", 1)[1]
        names.append(ref)
    return names


def check_out(
    name: str,
    url: str,
    directory: Path,
    *,
    kind: RepositoryKind,
    revision: str | None = None,
    branch: str | None = None,
    distribution_version: str | None = None,
    offline: bool = False,
) -> str:
    """Check out, in Rally's order (module doc), and return the commit (40 hex digits).

    Raises:
        DataError: the revision or branch does not exist, or nothing fits the distribution version.
    """
    target = revision or branch
    try:
        if target:
            if (
                branch
                and not revision
                and not offline
                and branch in branches(directory, remote=True, kind=kind)
            ):
                git(directory, "checkout", "--quiet", "-B", branch, f"origin/{branch}", kind=kind)
            else:
                git(directory, "checkout", "--quiet", target, kind=kind)
        elif not offline or kind.choose_offline:
            _check_out_for_version(name, url, directory, distribution_version, kind)
        head = git(directory, "rev-parse", "HEAD", kind=kind).strip()
    except GitFailed as e:
        what = f"revision '{target}'" if target else f"the branch for version {distribution_version}"
        raise DataError(
            f"Could not check out {what} of the {kind.noun} repository '{name}' in '{directory}': {e}."
        ) from e
    logger.info("%s repository %s at %s", kind.noun, name, head)
    return head


def _check_out_for_version(
    name: str, url: str, directory: Path, distribution_version: str | None, kind: RepositoryKind
) -> None:
    chosen = best_match(branches(directory, remote=True, kind=kind), distribution_version, kind.branches)
    if chosen is not None:
        git(directory, "checkout", "--quiet", "-B", chosen, f"origin/{chosen}", kind=kind)
        return
    chosen = best_match(branches(directory, remote=False, kind=kind), distribution_version, kind.branches)
    if chosen is None and distribution_version:
        tags = set(git(directory, "tag", kind=kind).split())
        chosen = next((f"v{v}" for v in version_variants(distribution_version) if f"v{v}" in tags), None)
    if chosen is None:
        raise DataError(
            f"The {kind.noun} repository '{name}' ({url}) has no branch or tag for distribution version "
            f"{distribution_version}. Pick one with {kind.pick_hint}."
        )
    git(directory, "checkout", "--quiet", chosen, kind=kind)
