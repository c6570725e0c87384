"""The modules and plugins inside an Elasticsearch distribution (``esbench list elasticsearch-plugins``).

Rally's ``list elasticsearch-plugins`` (esrally/mechanic/team.py ``list_plugins``) lists the plugins
its team repository can install (Name, Configuration). esbench installs no plugins into the nodes it
provisions: the plugins a race can use are the ones the distribution brings. So esbench lists what
is in the distribution it provisions: every directory of ``modules/`` and ``plugins/`` that has a
``plugin-descriptor.properties`` (Elasticsearch's plugin descriptor), with the descriptor's
``description``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

DESCRIPTOR = "plugin-descriptor.properties"


class ComponentKind(StrEnum):
    """Where a component lives in the distribution."""

    #: ``modules/``: always loaded.
    MODULE = "module"
    #: ``plugins/``: installed with ``bin/elasticsearch-plugin``.
    PLUGIN = "plugin"


@dataclass(frozen=True, kw_only=True)
class BundledComponent:
    """A module or plugin of a distribution: its ``name`` and ``description`` as its descriptor gives
    them (the directory name when the descriptor has no ``name``)."""

    name: str
    kind: ComponentKind
    description: str


def _descriptor(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "!")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        values[key.strip()] = value.strip()
    return values


def bundled_components(home: Path) -> tuple[BundledComponent, ...]:
    """The modules and plugins of the distribution unpacked at ``home``, modules first, each kind
    sorted by name.

    Raises:
        OSError: ``home`` or a descriptor cannot be read.
    """
    found: list[BundledComponent] = []
    for kind, directory in ((ComponentKind.MODULE, "modules"), (ComponentKind.PLUGIN, "plugins")):
        root = home / directory
        if not root.is_dir():
            continue
        for entry in sorted(root.iterdir()):
            descriptor = entry / DESCRIPTOR
            if not descriptor.is_file():
                continue
            values = _descriptor(descriptor)
            found.append(
                BundledComponent(
                    name=values.get("name") or entry.name,
                    kind=kind,
                    description=values.get("description", ""),
                )
            )
    return tuple(found)
