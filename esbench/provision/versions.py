"""Elasticsearch version strings: ``8.19.0``, ``9.0.0-SNAPSHOT``, ``8.0.0-rc1``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from esbench.exceptions import UserError

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([A-Za-z0-9.]+))?$")


@dataclass(frozen=True, kw_only=True, order=True)
class Version:
    """A parsed ``major.minor.patch[-suffix]`` version."""

    major: int
    minor: int
    patch: int
    suffix: str = ""


def parse_version(text: str) -> Version:
    """Parse ``text`` (``"8.19.0"``).

    Raises:
        UserError: not of the form ``major.minor.patch[-suffix]``.
    """
    m = _VERSION_RE.match(text.strip())
    if not m:
        raise UserError(
            f"'{text}' is not an Elasticsearch version: --distribution-version needs major.minor.patch, "
            f"e.g. 8.19.0."
        )
    return Version(major=int(m[1]), minor=int(m[2]), patch=int(m[3]), suffix=m[4] or "")
