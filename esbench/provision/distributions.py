"""Supply an unpacked Elasticsearch distribution: from Maven, from Elastic's download server, or a file.

Cache layout below :func:`esbench.provision.repositories.distributions_cache` (``$ESBENCH_DIST_CACHE``, else
``$ESBENCH_HOME/distributions``)::

    maven/elasticsearch-8.19.0.zip            copied out of the local Maven repository
    maven/elasticsearch-8.19.0/               unpacked (ES home, marked complete)
    elastic/elasticsearch-8.19.0-linux-x86_64.tar.gz
    elastic/elasticsearch-8.19.0-linux-x86_64/
    local/<archive stem>-<hash>/              unpacked --distribution-path archives

A second start with the same version finds the unpacked directory and neither calls ``mvn`` nor
downloads nor unpacks.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path

from esbench.exceptions import SupplyError, UserError
from esbench.provision.archives import COMPLETE_MARKER, archive_kind, file_lock, unpack
from esbench.provision.repositories import distributions_cache, elastic_url, pin_repository
from esbench.provision.settings import REPOSITORIES, DistributionRepository, ProvisionSettings
from esbench.provision.versions import parse_version

logger = logging.getLogger(__name__)

#: Maven coordinates of the integ-test distribution (a real server with a minimal module set).
MAVEN_GROUP = "org.elasticsearch.distribution.integ-test-zip"
MAVEN_ARTIFACT = "elasticsearch"


@dataclass(frozen=True, kw_only=True)
class Distribution:
    """An unpacked distribution in the cache.

    Attributes:
        version: the Elasticsearch version (read from ``lib/elasticsearch-<version>.jar``).
        home: the unpacked directory containing ``bin/elasticsearch``.
        flavor: ``"integ-test"`` (Maven), ``"default"`` (Elastic tar.gz) or ``"local"``.
    """

    version: str
    home: Path
    flavor: str


def _pinned(settings: ProvisionSettings) -> ProvisionSettings:
    """Resolve ``--distribution-repository=auto`` (see :mod:`esbench.provision.repositories`); Rally's
    ``release`` is Elastic's download server, ``elastic``."""
    if settings.distribution_repository == "release":
        settings = replace(settings, distribution_repository=DistributionRepository.ELASTIC)
    if settings.distribution_path is not None or settings.distribution_repository != "auto":
        return settings
    return pin_repository(settings, notify=logger.warning)[0]


def _check_repository(settings: ProvisionSettings) -> None:
    if settings.distribution_path is None and settings.distribution_repository not in REPOSITORIES:
        raise UserError(
            f"Unknown --distribution-repository '{settings.distribution_repository}': use one of "
            f"{', '.join(REPOSITORIES)}, or --distribution-path=FILE for a local archive."
        )


# --- maven -------------------------------------------------------------------------------------------


def maven_coordinates(version: str) -> str:
    """``group:artifact:version:zip`` of the integ-test distribution."""
    return f"{MAVEN_GROUP}:{MAVEN_ARTIFACT}:{version}:zip"


def _mvn_command(version: str, out_dir: Path, *, offline: bool, coordinates: str | None = None) -> list[str]:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise SupplyError(
            "The 'mvn' command was not found on PATH, so the Elasticsearch distribution cannot be resolved "
            "from Maven. Install Maven (apt-get install maven), or use --distribution-path=FILE with a "
            "downloaded archive, or --distribution-repository=elastic."
        )
    # Extra arguments (e.g. -Dmaven.repo.local=..., -s settings.xml) for Maven < 3.9 which lacks MAVEN_ARGS.
    extra = shlex.split(os.environ.get("ESBENCH_MVN_ARGS", ""))
    return [
        mvn,
        "-B",
        "-q",
        *(["-o"] if offline else []),
        *extra,
        "dependency:copy",
        f"-Dartifact={coordinates or maven_coordinates(version)}",
        f"-DoutputDirectory={out_dir}",
        "-Dmdep.overWriteReleases=true",
    ]


def _maven_archive(
    version: str,
    cache: Path,
    *,
    offline: bool,
    coordinates: str | None = None,
    stem: str = "elasticsearch",
    product: str = "Elasticsearch",
) -> Path:
    """The Maven artifact ``coordinates`` (default: the Elasticsearch integ-test zip of ``version``)
    copied to ``cache/maven/<stem>-<version>.zip`` with the ``mvn`` client, unless already there."""
    archive = cache / "maven" / f"{stem}-{version}.zip"
    if archive.is_file():
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=archive.parent, prefix=".mvn-") as tmp:
        cmd = _mvn_command(version, Path(tmp), offline=offline, coordinates=coordinates)
        logger.info("Resolving %s: %s", coordinates or maven_coordinates(version), shlex.join(cmd))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
        except OSError as e:
            raise SupplyError(f"Cannot run '{cmd[0]}': {e}.", e) from e
        output = _strip_ansi(proc.stdout + proc.stderr)
        got = list(Path(tmp).glob("*.zip"))
        if proc.returncode != 0 or not got:
            raise SupplyError(
                _maven_failure(version, output, offline=offline, coordinates=coordinates, product=product)
            )
        os.replace(got[0], archive)
    return archive


_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


def _strip_ansi(text: str) -> str:
    return _ANSI_RE.sub("", text)


def _maven_failure(
    version: str,
    output: str,
    *,
    offline: bool,
    coordinates: str | None = None,
    product: str = "Elasticsearch",
) -> str:
    coords = coordinates or maven_coordinates(version)
    errors = [ln.removeprefix("[ERROR]").strip() for ln in output.splitlines() if ln.startswith("[ERROR]")]
    summary = next((e for e in errors if e), output.strip()[-500:] or "no output")
    if offline and ("offline" in output.lower() or "Could not find artifact" in output):
        return (
            f"{product} {version} is not in the local Maven repository and --offline forbids downloading "
            f"it ({coords}). Run 'esbench download --distribution-version={version}' while online, or drop "
            f"--offline. Maven said: {summary}"
        )
    if "Could not find artifact" in output or "Unable to find artifact" in output:
        return (
            f"{product} {version} was not found in the Maven repositories ({coords}): check "
            f"--distribution-version (releases look like 8.19.0) and the mirrors in your ~/.m2/settings.xml. "
            f"Maven said: {summary}"
        )
    return (
        f"Maven could not resolve {coords}: {summary} Check your network and ~/.m2/settings.xml, or use "
        f"--distribution-path=FILE."
    )


# --- elastic -----------------------------------------------------------------------------------------


def _download(
    url: str,
    dest: Path,
    *,
    timeout: float = 60.0,
    product: str = "Elasticsearch",
    server: str = "Elastic's download server",
) -> None:
    """Fetch ``url`` into ``dest`` (atomically: a partial download never has ``dest``'s name).

    Raises:
        SupplyError: an HTTP error or an unreachable ``server``, naming ``product`` and the other ways
            to supply the distribution.
    """
    tmp = dest.with_name(f".{dest.name}.part-{os.getpid()}")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out, length=1 << 20)
        os.replace(tmp, dest)
    except urllib.error.HTTPError as e:
        hint = " (no such version?)" if e.code == 404 else ""
        raise SupplyError(
            f"Downloading the {product} distribution from {url} failed: HTTP {e.code} {e.reason}{hint}. "
            f"Check --distribution-version, or use --distribution-repository=maven or "
            f"--distribution-path=FILE.",
            e,
        ) from e
    except (urllib.error.URLError, OSError, TimeoutError) as e:
        reason = getattr(e, "reason", e)
        where = server[0].upper() + server[1:]
        raise SupplyError(
            f"Cannot download the {product} distribution from {url}: {reason}. {where} "
            f"may be unreachable from here: use --distribution-repository=maven (resolved with "
            f"mvn and your Maven mirrors) or --distribution-path=FILE.",
            e,
        ) from e
    finally:
        tmp.unlink(missing_ok=True)


def _elastic_archive(version: str, cache: Path, *, template: str | None, offline: bool) -> Path:
    url = elastic_url(version, template)
    archive = cache / "elastic" / url.rsplit("/", 1)[-1]
    if archive.is_file():
        return archive
    if offline:
        raise SupplyError(
            f"Elasticsearch {version} is not in the distribution cache ({archive}) and --offline forbids "
            f"downloading it from {url}. Run 'esbench download --distribution-repository=elastic "
            f"--distribution-version={version}' while online."
        )
    archive.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(archive.with_name(archive.name + ".lock")):
        if not archive.is_file():
            logger.info("Downloading %s", url)
            _download(url, archive)
    return archive


# --- entry points ------------------------------------------------------------------------------------


def download_archive(settings: ProvisionSettings) -> Path:
    """Make the distribution archive available in the cache and return its path.

    Raises:
        SupplyError: mvn missing or failing, unknown version, download failure, offline without cache.
        UserError: bad repository name or version.
    """
    settings = _pinned(settings)
    _check_repository(settings)
    if settings.distribution_path is not None:
        path = settings.distribution_path.expanduser().resolve()
        if not path.is_file():
            raise SupplyError(
                f"--distribution-path '{settings.distribution_path}' does not exist or is not a file."
            )
        archive_kind(path)
        return path
    parse_version(settings.distribution_version)
    cache = distributions_cache()
    if settings.distribution_repository == "maven":
        return _maven_archive(settings.distribution_version, cache, offline=settings.offline)
    return _elastic_archive(
        settings.distribution_version, cache, template=settings.elastic_url_template, offline=settings.offline
    )


def local_archive(settings: ProvisionSettings, cache: Path) -> tuple[Path, Path]:
    """The ``--distribution-path`` archive and the directory below ``cache`` it unpacks into.

    The directory is ``local/<archive name without .tar.gz/.tgz/.tar/.zip>-<key>``, where the key
    (12 hex digits of a SHA-256) covers the archive's resolved path, size and modification time, so
    a replaced archive unpacks afresh and an unchanged one is unpacked once.

    Raises:
        SupplyError: the path is not an existing file of a known archive kind.
    """
    archive = download_archive(settings)
    st = archive.stat()
    key = hashlib.sha256(f"{archive}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:12]
    stem = re.sub(r"\.(tar\.gz|tgz|tar|zip)$", "", archive.name)
    return archive, cache / "local" / f"{stem}-{key}"


def _unpacked_dir(settings: ProvisionSettings, cache: Path) -> Path | None:
    """Where the unpacked distribution lives in the cache (None for --distribution-path: needs a hash)."""
    if settings.distribution_repository == "maven":
        return cache / "maven" / f"elasticsearch-{settings.distribution_version}"
    stem = elastic_url(settings.distribution_version, settings.elastic_url_template).rsplit("/", 1)[-1]
    return cache / "elastic" / re.sub(r"\.(tar\.gz|tgz|zip)$", "", stem)


def obtain_distribution(settings: ProvisionSettings) -> Distribution:
    """Return the unpacked distribution, downloading and unpacking only what the cache lacks.

    Raises:
        SupplyError: see :func:`download_archive`; also a corrupt archive or one without
            ``bin/elasticsearch``.
    """
    settings = _pinned(settings)
    _check_repository(settings)
    cache = distributions_cache()
    archive: Path | None
    target: Path | None
    if settings.distribution_path is not None:
        archive, target = local_archive(settings, cache)
        flavor = "local"
    else:
        parse_version(settings.distribution_version)
        target = _unpacked_dir(settings, cache)
        assert target is not None
        flavor = "integ-test" if settings.distribution_repository == "maven" else "default"
        archive = None if (target / COMPLETE_MARKER).exists() else download_archive(settings)
    if archive is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        unpack(archive, target)
    home = target
    if not (home / "bin" / "elasticsearch").is_file():
        raise SupplyError(
            f"'{home}' (unpacked from {archive or 'the cache'}) has no bin/elasticsearch: it is not an "
            f"Elasticsearch distribution."
        )
    return Distribution(
        version=detect_version(home) or settings.distribution_version, home=home, flavor=flavor
    )


def detect_version(home: Path, executable: str = "elasticsearch") -> str | None:
    """The version of the distribution at ``home``, from ``lib/<executable>-<version>.jar``
    (``executable``: ``elasticsearch``, or ``opensearch`` for OpenSearch); None without that jar."""
    pattern = re.compile(rf"^{re.escape(executable)}-(\d+\.\d+\.\d+(?:-[A-Za-z0-9.]+)?)\.jar$")
    lib = home / "lib"
    if lib.is_dir():
        for jar in lib.iterdir():
            m = pattern.match(jar.name)
            if m:
                return m.group(1)
    return None
