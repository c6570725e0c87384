from __future__ import annotations

from pathlib import Path

import pytest
from provfakes import make_jdk

from esbench.exceptions import JavaError, UserError
from esbench.provision.java import find_java, java_requirement, java_version
from esbench.provision.versions import parse_version


def test_parse_version_and_bad_version() -> None:
    assert parse_version("8.19.0") < parse_version("9.0.0")
    assert parse_version("9.1.0-SNAPSHOT").suffix == "SNAPSHOT"
    with pytest.raises(UserError, match="--distribution-version"):
        parse_version("latest")


@pytest.mark.parametrize(
    ("version", "expected"),
    [("8.19.0", (17, None)), ("8.17.0", (17, 23)), ("9.1.0", (21, None)), ("7.17.25", (8, 23))],
)
def test_java_requirement(version: str, expected: tuple[int, int | None]) -> None:
    assert java_requirement(version) == expected


def test_java_version_from_release_file_or_java_dash_version(tmp_path: Path) -> None:
    assert java_version(make_jdk(tmp_path, "a", "17.0.15")) == 17
    assert java_version(make_jdk(tmp_path, "b", "21.0.2", release=False)) == 21
    assert java_version(make_jdk(tmp_path, "c", "1.8.0_292", release=False)) == 8
    assert java_version(tmp_path / "missing") is None


def test_explicit_es_java_home_wins_when_suitable(tmp_path: Path) -> None:
    jvm = tmp_path / "jvm"
    make_jdk(jvm, "jdk-21", "21.0.1")
    mine = make_jdk(tmp_path, "mine", "17.0.2")
    found = find_java("8.19.0", env={"ES_JAVA_HOME": str(mine), "PATH": ""}, jvm_dirs=[jvm])
    assert found.path == mine.resolve() and found.major == 17 and found.origin == "ES_JAVA_HOME"


def test_too_old_default_falls_back_to_the_oldest_suitable_jdk_in_jvm_dirs(tmp_path: Path) -> None:
    jvm = tmp_path / "jvm"
    old = make_jdk(jvm, "jdk-11", "11.0.20")
    make_jdk(jvm, "jdk-25", "25.0.1")
    j21 = make_jdk(jvm, "jdk-21", "21.0.1")
    found = find_java("9.0.0", env={"JAVA_HOME": str(old), "PATH": ""}, jvm_dirs=[jvm])
    assert found.path == j21.resolve() and found.major == 21


def test_bundled_jdk_is_used_before_java_home(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    bundled = make_jdk(dist, "jdk", "24.0.1")
    other = make_jdk(tmp_path, "other", "17.0.1")
    found = find_java("8.19.0", dist_home=dist, env={"JAVA_HOME": str(other), "PATH": ""}, jvm_dirs=[])
    assert found.path == bundled.resolve()


def test_security_manager_versions_refuse_java_24(tmp_path: Path) -> None:
    jvm = tmp_path / "jvm"
    make_jdk(jvm, "jdk-25", "25.0.1")
    with pytest.raises(JavaError, match=r"needs Java 17 to 23.*Java 25"):
        find_java("8.17.0", env={"PATH": ""}, jvm_dirs=[jvm])


def test_no_java_at_all_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JavaError, match=r"No suitable Java found for Elasticsearch 8.19.0: it needs Java 17"):
        find_java("8.19.0", env={"PATH": ""}, jvm_dirs=[tmp_path / "nothing"])
