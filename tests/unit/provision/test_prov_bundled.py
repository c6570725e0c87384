"""The modules and plugins of a distribution, from its plugin descriptors."""

from __future__ import annotations

from pathlib import Path

from esbench.provision.bundled import ComponentKind, bundled_components


def _component(home: Path, where: str, directory: str, descriptor: str | None) -> None:
    path = home / where / directory
    path.mkdir(parents=True)
    (path / f"{directory}.jar").write_bytes(b"")
    if descriptor is not None:
        (path / "plugin-descriptor.properties").write_text(descriptor)


def test_modules_then_plugins_with_the_descriptors_name_and_description(tmp_path: Path) -> None:
    _component(
        tmp_path, "modules", "x-pack-core", "# c\ndescription=Core = things\nname=x-pack-core\nversion=1\n"
    )
    _component(tmp_path, "modules", "apm", "description=APM\nname=apm\n")
    _component(tmp_path, "plugins", "analysis-icu", "description=ICU\n")
    _component(tmp_path, "modules", "not-a-module", None)
    found = bundled_components(tmp_path)
    assert [(c.name, c.kind, c.description) for c in found] == [
        ("apm", ComponentKind.MODULE, "APM"),
        ("x-pack-core", ComponentKind.MODULE, "Core = things"),
        ("analysis-icu", ComponentKind.PLUGIN, "ICU"),
    ]


def test_a_distribution_without_plugins_directory_has_only_modules(tmp_path: Path) -> None:
    _component(tmp_path, "modules", "transport-netty4", "name=transport-netty4\n")
    assert [c.name for c in bundled_components(tmp_path)] == ["transport-netty4"]
    assert bundled_components(tmp_path / "nowhere") == ()
