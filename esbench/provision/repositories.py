"""Which distribution repository serves a provisioning run when the user did not pin one.

``--distribution-repository=auto`` (the default) prefers what Rally's from-distribution pipeline
installs, the full default distribution from Elastic's download location (or the mirror named by
``ESBENCH_DISTRIBUTION_URL``), because public tracks need its modules: ingest processors,
painless, ``analysis-common`` analyzers, data streams. When that location cannot be reached within a
short connect timeout, the Maven integ-test distribution is used instead, with one line saying which
modules it lacks. ``maven`` and ``elastic`` pin a repository; ``--distribution-path`` bypasses both.

The decision order (first match wins):

1. ``--distribution-path`` given: ``local``.
2. ``maven`` or ``elastic`` given: that repository.
3. The full distribution of this version is already in the cache (archive or unpacked): ``elastic``,
   without touching the network.
4. ``--offline``: ``maven`` (``mvn -o``).
5. A ``HEAD`` request to the download URL answers 2xx within the probe timeout: ``elastic``.
6. Otherwise: ``maven``, with the reason (DNS failure, refused, timeout, HTTP status).
"""

from __future__ import annotations

import os
import platform
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from esbench.exceptions import UserError
from esbench.home import home_subdir
from esbench.provision.archives import COMPLETE_MARKER
from esbench.provision.settings import (
    DEFAULT_ELASTIC_URL_TEMPLATE,
    OPENSEARCH_RELEASE_URL_TEMPLATE,
    DistributionRepository,
    ProvisionSettings,
)

#: The value of ``--distribution-repository`` that lets esbench choose.
AUTO = DistributionRepository.AUTO

#: The variable naming another URL template for OpenSearch's release bundles (a mirror).
OPENSEARCH_URL_ENV = "ESBENCH_OPENSEARCH_DISTRIBUTION_URL"

#: Seconds to wait for Elastic's download location to answer before falling back to Maven.
DEFAULT_PROBE_TIMEOUT_S = 3.0

#: Modules of the full default distribution that public tracks use and the integ-test
#: distribution does not have (its only modules are transport-netty4, x-pack-core,
#: x-pack-security and apm; see docs/provisioning.md).
INTEG_TEST_MISSING_MODULES = (
    "analysis-common",
    "ingest-common",
    "lang-painless",
    "data-streams",
    "mapper-extras",
    "x-pack-ilm",
    "x-pack-ml",
    "x-pack-transform",
)


def distributions_cache() -> Path:
    """The distribution cache: ``$ESBENCH_DIST_CACHE`` if set (shared between homes, e.g. in CI), else
    ``$ESBENCH_HOME/distributions``."""
    raw = os.environ.get("ESBENCH_DIST_CACHE")
    if raw:
        path = Path(raw).expanduser()
        path.mkdir(parents=True, exist_ok=True)
        return path
    return home_subdir("distributions")


def elastic_url(version: str, template: str | None = None) -> str:
    """Render the download URL of the full Linux/macOS tar.gz for ``version``.

    ``template`` (else ``$ESBENCH_DISTRIBUTION_URL``, else :data:`DEFAULT_ELASTIC_URL_TEMPLATE`) may use
    ``{version}``, ``{os}`` (``linux``/``darwin``) and ``{arch}`` (``x86_64``/``aarch64``), Elastic's names.
    """
    template = template or os.environ.get("ESBENCH_DISTRIBUTION_URL") or DEFAULT_ELASTIC_URL_TEMPLATE
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64"}.get(
        machine, machine
    )
    os_name = {"linux": "linux", "darwin": "darwin"}.get(platform.system().lower(), platform.system().lower())
    try:
        return template.format(version=version, os=os_name, arch=arch)
    except (KeyError, IndexError, ValueError) as e:
        raise UserError(
            f"Bad distribution URL template '{template}': {e!r}. Only {{version}}, {{os}} and {{arch}} "
            f"can be substituted.",
            e,
        ) from e


def opensearch_release_url(
    version: str, *, system: str | None = None, machine: str | None = None, template: str | None = None
) -> str:
    """The URL of OpenSearch's full bundle for ``version`` on its release server, as OSB 2.4.0 renders
    its ``release_url`` (``osbenchmark/builder/supplier.py`` ``TemplateRenderer``): the operating
    system is ``platform.system()`` lower-cased when OSB knows it (``linux``, ``freebsd``), else
    ``linux`` (``SupportedOS.get_os``); the architecture is ``platform.machine()`` with ``x86_64``
    named ``x64`` (``osbenchmark/utils/sysstats.py`` ``cpu_arch``) and ``aarch64`` named ``arm64``.

    ``system``/``machine`` stand for this machine's (tests); ``template`` defaults to
    ``$ESBENCH_OPENSEARCH_DISTRIBUTION_URL`` (a mirror; OSB's ``[distributions] release.url``), else
    :data:`OPENSEARCH_RELEASE_URL_TEMPLATE`, with ``{version}``, ``{os}`` and ``{arch}``.

    Raises:
        UserError: a template with other placeholders.
    """
    system = (system or platform.system()).lower()
    os_name = system if system in ("linux", "docker", "freebsd") else "linux"
    arch = machine or platform.machine()
    arch = {"x86_64": "x64", "aarch64": "arm64"}.get(arch, arch)
    template = template or os.environ.get(OPENSEARCH_URL_ENV) or OPENSEARCH_RELEASE_URL_TEMPLATE
    try:
        return template.format(version=version, os=os_name, arch=arch)
    except (KeyError, IndexError, ValueError) as e:
        raise UserError(
            f"Bad {OPENSEARCH_URL_ENV} '{template}': {e!r}. Only {{version}}, {{os}} and {{arch}} can be "
            "substituted.",
            e,
        ) from e


@dataclass(frozen=True, kw_only=True)
class RepositoryChoice:
    """The repository a provisioning run uses, and why.

    Attributes:
        repository: ``"elastic"`` (full default distribution), ``"maven"`` (integ-test
            distribution), ``"release"`` (OpenSearch's full bundle) or ``"local"``
            (``--distribution-path``).
        reason: one sentence for the user and the race record.
        fallback: True when ``auto`` wanted the full distribution but had to take Maven's.
    """

    repository: str
    reason: str
    fallback: bool = False


def probe_timeout() -> float:
    """The connect timeout of the reachability probe in seconds: ``$ESBENCH_DISTRIBUTION_PROBE_TIMEOUT``
    or :data:`DEFAULT_PROBE_TIMEOUT_S`.

    Raises:
        UserError: the variable is not a positive number.
    """
    raw = os.environ.get("ESBENCH_DISTRIBUTION_PROBE_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_PROBE_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value <= 0:
        raise UserError(
            f"ESBENCH_DISTRIBUTION_PROBE_TIMEOUT='{raw}' is not a positive number of seconds: set it to "
            f"e.g. 3, or unset it."
        )
    return value


def choose_repository(settings: ProvisionSettings, *, timeout: float | None = None) -> RepositoryChoice:
    """Decide which repository provides the distribution (see the module docstring for the order).

    Args:
        settings: the provisioning settings; ``distribution_repository`` may be ``auto``.
        timeout: probe timeout in seconds (default :func:`probe_timeout`).

    Returns:
        The choice; only ``auto`` ever contacts the network (one ``HEAD`` request).

    Raises:
        UserError: a bad URL template or probe timeout.
    """
    if settings.distribution_path is not None:
        return RepositoryChoice(
            repository="local", reason=f"--distribution-path {settings.distribution_path}"
        )
    if settings.distribution_repository == AUTO and settings.distribution_flavor != "elasticsearch":
        # Elastic's download server has no other product; OpenSearch comes from its Maven integ-test zip.
        return RepositoryChoice(
            repository="maven",
            reason=f"{settings.distribution_flavor} is provisioned from its Maven integ-test zip",
        )
    if settings.distribution_repository != AUTO:
        return RepositoryChoice(
            repository=settings.distribution_repository,
            reason=f"pinned with --distribution-repository={settings.distribution_repository}",
        )
    version = settings.distribution_version
    url = elastic_url(version, settings.elastic_url_template)
    name = url.rsplit("/", 1)[-1]
    cached = distributions_cache() / "elastic"
    if (cached / name).is_file() or (cached / _strip_archive_suffix(name) / COMPLETE_MARKER).exists():
        return RepositoryChoice(
            repository="elastic", reason=f"the full default distribution {version} is in the cache ({cached})"
        )
    if settings.offline:
        return RepositoryChoice(
            repository="maven",
            reason=_fallback_reason(version, f"--offline forbids downloading {url} and it is not cached"),
            fallback=True,
        )
    problem = unreachable(url, timeout=probe_timeout() if timeout is None else timeout)
    if problem is None:
        return RepositoryChoice(repository="elastic", reason=f"the full default distribution from {url}")
    why = f"{url} is not reachable ({problem})"
    return RepositoryChoice(repository="maven", reason=_fallback_reason(version, why), fallback=True)


def pin_repository(
    settings: ProvisionSettings, *, notify: Callable[[str], object] | None = None
) -> tuple[ProvisionSettings, RepositoryChoice]:
    """Resolve ``auto`` to a concrete repository and return settings that pin it, plus the choice.

    ``notify`` receives the one-line reason when ``auto`` fell back to the integ-test distribution
    (the line names the modules it lacks). Settings that already pin a repository are returned as they
    are.

    Raises:
        UserError: see :func:`choose_repository`.
    """
    choice = choose_repository(settings)
    if choice.fallback and notify is not None:
        notify(choice.reason)
    if settings.distribution_repository == AUTO and choice.repository in ("maven", "elastic"):
        settings = replace(settings, distribution_repository=DistributionRepository(choice.repository))
    return settings, choice


def unreachable(url: str, *, timeout: float) -> str | None:
    """Why ``url`` cannot be fetched, or None when a ``HEAD`` request answers 2xx within ``timeout`` s.

    Proxies from the environment (``https_proxy``...) apply, as for the download itself.
    """
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            status = getattr(resp, "status", 200)
            return None if 200 <= status < 300 else f"HTTP {status}"
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code} {e.reason}"
    except urllib.error.URLError as e:
        reason = e.reason
        if isinstance(reason, TimeoutError):
            return f"no answer within {timeout:g} s"
        return str(getattr(reason, "strerror", None) or reason)
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except (OSError, ValueError) as e:
        return str(e)


def _fallback_reason(version: str, why: str) -> str:
    return (
        f"The full Elasticsearch {version} distribution is not available ({why}); using the Maven "
        f"integ-test distribution instead, which lacks the modules {', '.join(INTEG_TEST_MISSING_MODULES)} "
        f"and more (no ingest processors, painless scripts, analysis-common analyzers or data streams). "
        f"Pin a repository with --distribution-repository=elastic|maven, or set ESBENCH_DISTRIBUTION_URL "
        f"to a reachable mirror."
    )


def _strip_archive_suffix(name: str) -> str:
    return re.sub(r"\.(tar\.gz|tgz|zip)$", "", name)
