"""Find a JDK that can run a given Elasticsearch version.

Elasticsearch 8.x needs Java 17+, 9.x needs Java 21+ (Elasticsearch "Supported JVM" matrix); versions
before 8.18 still use the Java Security Manager, which JDK 24 removed, so they need Java <= 23.
The integ-test distribution carries no JDK, the full tar.gz carries one in ``jdk/``.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from esbench.exceptions import JavaError
from esbench.provision.versions import parse_version

logger = logging.getLogger(__name__)

DEFAULT_JVM_DIRS: tuple[Path, ...] = (Path("/usr/lib/jvm"),)

_RELEASE_RE = re.compile(r'^JAVA_VERSION="([^"]+)"', re.MULTILINE)
_VERSION_RE = re.compile(r'version "([^"]+)"')


@dataclass(frozen=True, kw_only=True)
class JavaHome:
    """A JDK: its home directory (with ``bin/java``) and its feature version (17, 21...)."""

    path: Path
    major: int
    origin: str


def java_requirement(es_version: str) -> tuple[int, int | None]:
    """The (minimum, maximum or None) Java feature version that runs ``es_version``."""
    v = parse_version(es_version)
    if v.major >= 9:
        return 21, None
    if v.major == 8:
        return 17, (23 if v.minor < 18 else None)
    if v.major == 7:
        return 8, 23
    return 8, 15


def _major_of(text: str) -> int | None:
    parts = text.split(".")
    try:
        first = int(re.sub(r"\D.*", "", parts[0]))
        if first == 1 and len(parts) > 1:  # "1.8.0_292" is Java 8
            return int(re.sub(r"\D.*", "", parts[1]))
        return first
    except ValueError:
        return None


def java_version(home: Path) -> int | None:
    """The feature version of the JDK at ``home`` (``release`` file, else ``java -version``).

    Returns None if ``home/bin/java`` is missing or does not report a version.
    """
    java = home / "bin" / "java"
    if not os.access(java, os.X_OK):
        return None
    release = home / "release"
    if release.is_file():
        m = _RELEASE_RE.search(release.read_text(errors="replace"))
        if m:
            return _major_of(m.group(1))
    try:
        proc = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = _VERSION_RE.search(proc.stderr + proc.stdout)
    return _major_of(m.group(1)) if m else None


def _candidates(
    dist_home: Path | None, env: Mapping[str, str], jvm_dirs: Sequence[Path]
) -> list[tuple[Path, str]]:
    found: list[tuple[Path, str]] = []
    if env.get("ES_JAVA_HOME"):
        found.append((Path(env["ES_JAVA_HOME"]), "ES_JAVA_HOME"))
    if dist_home is not None and (dist_home / "jdk" / "bin" / "java").exists():
        found.append((dist_home / "jdk", "the JDK bundled with the distribution"))
    if env.get("JAVA_HOME"):
        found.append((Path(env["JAVA_HOME"]), "JAVA_HOME"))
    on_path = shutil.which("java", path=env.get("PATH", os.defpath))
    if on_path:
        found.append((Path(on_path).resolve().parent.parent, "java on PATH"))
    for base in jvm_dirs:
        if base.is_dir():
            for child in sorted(base.iterdir()):
                found.append((child, str(base)))
    return found


def find_java(
    es_version: str,
    *,
    dist_home: Path | None = None,
    env: Mapping[str, str] | None = None,
    jvm_dirs: Sequence[Path] = DEFAULT_JVM_DIRS,
    requirement: tuple[int, int | None] | None = None,
    product: str = "Elasticsearch",
) -> JavaHome:
    """Pick the JDK to run ``es_version`` with.

    Order: ``ES_JAVA_HOME``, the distribution's bundled ``jdk/``, ``JAVA_HOME``, ``java`` on ``PATH``,
    then every JDK below ``jvm_dirs`` (oldest suitable first). The first one within
    :func:`java_requirement` (or ``requirement``, for another ``product`` such as OpenSearch) wins;
    skipped ones are logged.

    Raises:
        JavaError: no suitable JDK; the message lists what was found and what is needed.
    """
    env = os.environ if env is None else env
    low, high = requirement or java_requirement(es_version)
    seen: dict[Path, tuple[int | None, str]] = {}
    primary: list[JavaHome] = []
    scanned: list[JavaHome] = []
    for path, origin in _candidates(dist_home, env, jvm_dirs):
        real = path.resolve()
        if real in seen:
            continue
        major = java_version(real)
        seen[real] = (major, origin)
        if major is None:
            continue
        target = scanned if origin in {str(d) for d in jvm_dirs} else primary
        target.append(JavaHome(path=real, major=major, origin=origin))

    def fits(j: JavaHome) -> bool:
        return j.major >= low and (high is None or j.major <= high)

    for j in primary:
        if fits(j):
            return j
        logger.info(
            "Skipping Java %s from %s (%s): %s %s needs %s",
            j.major,
            j.origin,
            j.path,
            product,
            es_version,
            _need(low, high),
        )
    for j in sorted(scanned, key=lambda j: j.major):
        if fits(j):
            if primary:
                logger.warning(
                    "Using Java %s at %s for %s %s (the default Java %s is not suitable)",
                    j.major,
                    j.path,
                    product,
                    es_version,
                    primary[0].major,
                )
            return j
    listing = (
        ", ".join(
            f"{p} ({'Java ' + str(m) if m else 'no usable bin/java'}, from {o})" for p, (m, o) in seen.items()
        )
        or "none"
    )
    raise JavaError(
        f"No suitable Java found for {product} {es_version}: it needs {_need(low, high)}. "
        f"Found: {listing}. "
        f"Install a suitable JDK (e.g. apt-get install openjdk-17-jdk-headless, or one below "
        f"{', '.join(map(str, jvm_dirs))}) or point ES_JAVA_HOME at one."
    )


def _need(low: int, high: int | None) -> str:
    return f"Java {low} or newer" if high is None else f"Java {low} to {high}"


def runtime_java(
    runtime_jdk: str | None,
    es_version: str,
    *,
    dist_home: Path | None = None,
    env: Mapping[str, str] | None = None,
    jvm_dirs: Sequence[Path] = DEFAULT_JVM_DIRS,
    requirement: tuple[int, int | None] | None = None,
    product: str = "Elasticsearch",
) -> JavaHome:
    """The JDK that runs the nodes, as Rally's ``--runtime-jdk`` chooses it
    (``esrally/mechanic/java_resolver.py``, ``esrally/utils/jvm.py``).

    ``runtime_jdk``: None: :func:`find_java`'s choice. ``"bundled"``: the distribution's ``jdk/``.
    ``"N"`` (a major version): ``JAVAN_HOME`` when it is set (Rally's variable), else the first JDK of
    version N that :func:`find_java` would consider. The version must still run ``es_version``.

    Raises:
        JavaError: no bundled JDK, ``JAVAN_HOME`` not a JDK N, no JDK N found, or N cannot run
            ``es_version``; the message says which and how to fix it.
    """
    env = os.environ if env is None else env
    if runtime_jdk is None:
        return find_java(
            es_version,
            dist_home=dist_home,
            env=env,
            jvm_dirs=jvm_dirs,
            requirement=requirement,
            product=product,
        )
    low, high = requirement or java_requirement(es_version)
    if runtime_jdk == "bundled":
        bundled = dist_home / "jdk" if dist_home is not None else None
        major = java_version(bundled) if bundled is not None else None
        if bundled is None or major is None:
            raise JavaError(
                f"--runtime-jdk=bundled: the {product} {es_version} distribution"
                f"{f' at {dist_home}' if dist_home else ''} has no bundled JDK (jdk/bin/java); the Maven "
                "integ-test distribution never has one. Give a JDK major version (--runtime-jdk=21) or "
                "use --distribution-repository=release for the full distribution."
            )
        return JavaHome(path=bundled.resolve(), major=major, origin="the JDK bundled with the distribution")
    wanted = int(runtime_jdk)
    if wanted < low or (high is not None and wanted > high):
        raise JavaError(
            f"--runtime-jdk={wanted} cannot run {product} {es_version}: it needs {_need(low, high)}. "
            "Give a version in that range or leave --runtime-jdk out."
        )
    variable = f"JAVA{wanted}_HOME"
    if env.get(variable):
        home = Path(env[variable])
        major = java_version(home)
        if major != wanted:
            raise JavaError(
                f"--runtime-jdk={wanted}: {variable}={home} is "
                f"{'not a JDK (no bin/java)' if major is None else f'Java {major}'}, not Java {wanted}. "
                f"Point {variable} at a JDK {wanted}."
            )
        return JavaHome(path=home.resolve(), major=major, origin=variable)
    try:
        # Rally takes the bundled JDK only for "bundled", so the distribution is not searched here.
        return find_java(
            es_version,
            dist_home=None,
            env=env,
            jvm_dirs=jvm_dirs,
            requirement=(wanted, wanted),
            product=product,
        )
    except JavaError as e:
        raise JavaError(
            f"--runtime-jdk={wanted}: no Java {wanted} found. Set {variable} to a JDK {wanted} "
            f"(as for Rally) or install one below {', '.join(map(str, jvm_dirs))}. ({e.message})"
        ) from e
