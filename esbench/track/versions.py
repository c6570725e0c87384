"""Which branch of a track repository fits a distribution version (Rally's rule).

Rally 2.13 ``esrally/utils/versions.py`` ``best_match``: for a version ``major.minor.patch[-suffix]``
the candidates are, most specific first, ``major.minor.patch-suffix``, ``major.minor.patch``,
``major.minor`` and ``major``. At the ``major.minor`` step, if that exact branch is missing, the
nearest earlier minor branch of the same major wins (``8.19`` falls back to ``8.17`` if ``8.18`` and
``8.19`` are missing; branches with a patch level are not considered for this). If nothing fits and
the version's major is newer than every branch's, or the version is empty, the answer is
``master``. A repository may also carry ``v<version>`` tags, looked up with :func:`version_variants`.

OSB 2.4.0 (``osbenchmark/utils/versions.py`` ``best_match``, ``latest_bounded_minor``) keeps Rally's
rule with two differences, which :data:`OSB_BRANCHES` carries: the last resort is ``main``, and a
minor branch ``X.0`` never counts as the nearest earlier minor (its test ``minor and minor <= ...``
drops minor 0).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-(.+))?$")
_LOOSE = re.compile(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-(.+))?$")


@dataclass(frozen=True)
class BranchRule:
    """What differs between Rally's and OSB's branch choice (module doc).

    Attributes:
        fallback: the branch for an empty version or one newer than every branch (``master`` in
            Rally, ``main`` in OSB).
        minor_zero: whether a ``X.0`` branch may be the nearest earlier minor (Rally: yes; OSB: no).
    """

    fallback: str
    minor_zero: bool


#: Rally 2.13's rule (``esrally/utils/versions.py`` ``best_match``).
RALLY_BRANCHES = BranchRule(fallback="master", minor_zero=True)
#: OSB 2.4.0's rule (``osbenchmark/utils/versions.py`` ``best_match``).
OSB_BRANCHES = BranchRule(fallback="main", minor_zero=False)


def version_variants(version: str) -> list[str]:
    """``"8.19.0-SNAPSHOT"`` -> ``["8.19.0-SNAPSHOT", "8.19.0", "8.19", "8"]`` (most specific first).

    Raises:
        ValueError: ``version`` is not ``major.minor.patch[-suffix]``.
    """
    m = _VERSION.match(version.strip())
    if not m:
        raise ValueError(f"'{version}' is not a version of the form major.minor.patch[-suffix]")
    major, minor, patch, suffix = int(m[1]), int(m[2]), int(m[3]), m[4]
    variants = [f"{major}.{minor}.{patch}-{suffix}"] if suffix else []
    return [*variants, f"{major}.{minor}.{patch}", f"{major}.{minor}", f"{major}"]


def _loose(name: str) -> tuple[int, int | None, int | None, str | None] | None:
    m = _LOOSE.match(name)
    if not m:
        return None
    return int(m[1]), None if m[2] is None else int(m[2]), None if m[3] is None else int(m[3]), m[4]


def best_match(branches: Iterable[str], version: str | None, rule: BranchRule = RALLY_BRANCHES) -> str | None:
    """The branch of ``branches`` for the distribution ``version`` by Rally's rule (module doc), or
    OSB's with ``rule=OSB_BRANCHES`` (``main`` where Rally says ``master``), or None.

    Examples (Rally's ``test_find_best_match``): ``best_match(["master", "8", "8.17"], "8.19.0")`` is
    ``"8.17"``; ``best_match(["master", "7", "8"], "9.1.0")`` is ``"master"``;
    ``best_match(["master", "8"], None)`` is ``"master"``.
    """
    available = list(branches)
    if not version:
        return rule.fallback
    m = _VERSION.match(version.strip())
    if not m:
        return None
    major, minor = int(m[1]), int(m[2])
    for candidate in version_variants(version):
        if candidate in available:
            return candidate
        if candidate == f"{major}.{minor}":
            earlier = [
                parsed[1]
                for parsed in map(_loose, available)
                if parsed is not None
                and parsed[0] == major
                and parsed[1] is not None
                and (rule.minor_zero or parsed[1] != 0)
                and parsed[2] is None
                and parsed[3] is None
                and parsed[1] <= minor
            ]
            if earlier:
                return f"{major}.{min(earlier, key=lambda x: abs(x - minor))}"
    majors = [parsed[0] for parsed in map(_loose, available) if parsed is not None]
    if major > max(majors, default=-1):
        return rule.fallback
    return None
