"""Where the Elasticsearch metrics store is, how esbench logs in, and its client.

Shared by the writer (:mod:`esbench.results.es_export`) and the readers. :func:`resolve_metrics_store`
is the one place that decides where the store is, from (first match wins):

1. ``--metrics-store=URL`` or ``$ESBENCH_METRICS_STORE``;
2. the ``[reporting]`` section of ``<esbench home>/esbench.ini`` with rally.ini's keys
   (``datastore.type = elasticsearch``, ``datastore.host``, ``datastore.port``, ``datastore.secure``,
   ``datastore.ssl.verification_mode``, ``datastore.ssl.certificate_authorities``,
   ``datastore.user``, ``datastore.password``, ``datastore.api_key``,
   ``datastore.probe.cluster_version``), so a Rally user copies the section across;

and the ``environment`` of the documents from ``[system] env.name`` (Rally's default ``local``).

Credentials come from the URL userinfo (``https://user:pass@host:9200``), options, the ini or
environment variables (``ESBENCH_METRICS_STORE_USER``, ``ESBENCH_METRICS_STORE_PASSWORD``,
``ESBENCH_METRICS_STORE_API_KEY``; Rally's ``RALLY_REPORTING_DATASTORE_*`` too); they are
stripped from the URL before it is shown anywhere and never written to the results store or logs.
"""

from __future__ import annotations

import configparser
import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit, urlunsplit

from esbench.exceptions import ConfigError, StoreError
from esbench.home import esbench_home

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

ENV_URL = "ESBENCH_METRICS_STORE"
ENV_USER = "ESBENCH_METRICS_STORE_USER"
ENV_PASSWORD = "ESBENCH_METRICS_STORE_PASSWORD"
ENV_API_KEY = "ESBENCH_METRICS_STORE_API_KEY"
#: Rally's variables for the same credentials (esrally/metrics.py, module level).
RALLY_ENV_USER = "RALLY_REPORTING_DATASTORE_USER"
RALLY_ENV_PASSWORD = "RALLY_REPORTING_DATASTORE_PASSWORD"
RALLY_ENV_API_KEY = "RALLY_REPORTING_DATASTORE_API_KEY"
DEFAULT_PREFIX = "esbench"
#: Rally's default ``[system] env.name`` (esrally/resources/rally.ini).
DEFAULT_ENVIRONMENT = "local"
#: The file whose ``[reporting]`` and ``[system]`` sections are read (the track repositories'
#: ``[tracks]`` live in the same file, see :mod:`esbench.track.repository`).
CONFIG_FILE = "esbench.ini"


@dataclass(frozen=True, kw_only=True)
class MetricsStoreSettings:
    """Where and how to export. Secrets are excluded from ``repr``.

    Attributes:
        hosts: node URLs without credentials (``https://host:9200``).
        username / password / api_key: credentials (basic auth or API key).
        verify_certs: verify TLS certificates (default True). ca_certs: CA bundle file.
        index_prefix: prefix of index and template names of esbench's own layout (``esbench``),
            which the readers still read; the writer writes Rally's names (``rally-*``).
        timeout_s: request timeout in seconds.
        environment: the ``environment`` field of every document (Rally's ``env.name``);
            ``esrally list races`` shows only the races of its own environment.
        probe_cluster_version: ask the store ``GET /`` before writing and refuse one that does not
            answer as Elasticsearch (rally.ini ``datastore.probe.cluster_version``, default true).
    """

    hosts: tuple[str, ...]
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    verify_certs: bool = True
    ca_certs: Path | None = None
    index_prefix: str = DEFAULT_PREFIX
    timeout_s: float = 30.0
    environment: str = DEFAULT_ENVIRONMENT
    probe_cluster_version: bool = True

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        username: str | None = None,
        password: str | None = None,
        api_key: str | None = None,
        verify_certs: bool = True,
        ca_certs: Path | None = None,
        index_prefix: str = DEFAULT_PREFIX,
        environment: str = DEFAULT_ENVIRONMENT,
        probe_cluster_version: bool = True,
    ) -> MetricsStoreSettings:
        """Settings from ``url`` (comma-separated URLs or ``host:port``; ``http://`` if no scheme).

        Credentials in the URL userinfo are used unless ``username``/``password`` are given.

        Raises:
            ConfigError: an empty or malformed URL (the message never contains the password).
        """
        hosts: list[str] = []
        for part in (p.strip() for p in url.split(",")):
            if not part:
                continue
            raw = part if "://" in part else f"http://{part}"
            try:
                split = urlsplit(raw)
                port = split.port
            except ValueError as e:
                raise ConfigError(
                    f"Invalid metrics store URL {redact_url(part)!r}: {e}. Write e.g. https://host:9200.", e
                ) from e
            if split.scheme not in ("http", "https") or not split.hostname:
                raise ConfigError(
                    f"Invalid metrics store URL {redact_url(part)!r}: use http:// or https:// and a host, "
                    "e.g. https://host:9200 (--metrics-store / ESBENCH_METRICS_STORE)."
                )
            if split.username is not None and username is None:
                username = unquote(split.username)
                if split.password is not None and password is None:
                    password = unquote(split.password)
            host = split.hostname if ":" not in split.hostname else f"[{split.hostname}]"
            netloc = f"{host}:{port}" if port else host
            hosts.append(urlunsplit((split.scheme, netloc, split.path.rstrip("/"), "", "")))
        if not hosts:
            raise ConfigError("The metrics store URL is empty (--metrics-store / ESBENCH_METRICS_STORE).")
        if password is not None and username is None:
            raise ConfigError("A metrics store password was given without a user name.")
        return cls(
            hosts=tuple(hosts),
            username=username,
            password=password,
            api_key=api_key,
            verify_certs=verify_certs,
            ca_certs=ca_certs,
            index_prefix=index_prefix,
            environment=environment,
            probe_cluster_version=probe_cluster_version,
        )

    @classmethod
    def from_env(cls, url: str | None = None, **kwargs: Any) -> MetricsStoreSettings | None:
        """Settings from ``url`` (an option value) or ``$ESBENCH_METRICS_STORE``; None if neither is set.

        User, password and API key default to their ``ESBENCH_METRICS_STORE_*`` variables.
        """
        url = url or os.environ.get(ENV_URL)
        if not url:
            return None
        kwargs.setdefault("username", _env(ENV_USER, RALLY_ENV_USER))
        kwargs.setdefault("password", _env(ENV_PASSWORD, RALLY_ENV_PASSWORD))
        kwargs.setdefault("api_key", _env(ENV_API_KEY, RALLY_ENV_API_KEY))
        return cls.from_url(url, **kwargs)

    @property
    def display_url(self) -> str:
        """The hosts for messages (never with credentials)."""
        return ",".join(self.hosts)


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def config_file() -> Path:
    """``<esbench home>/esbench.ini``."""
    return esbench_home() / CONFIG_FILE


def _read_ini(path: Path) -> configparser.ConfigParser:
    # No interpolation: a password may contain "%".
    parser = configparser.ConfigParser(interpolation=None)
    if path.is_file():
        try:
            parser.read(path, encoding="utf-8")
        except configparser.Error as e:
            raise ConfigError(f"Cannot read {path}: {e}. Fix the file (rally.ini's syntax).", e) from e
    return parser


def _ini_bool(parser: configparser.ConfigParser, path: Path, key: str, default: bool) -> bool:
    raw = parser.get("reporting", key, fallback="").strip()
    if not raw:
        return default
    if raw.lower() in ("true", "yes", "1", "on"):
        return True
    if raw.lower() in ("false", "no", "0", "off"):
        return False
    raise ConfigError(f"{path} [reporting] {key} = {raw!r}: write true or false.")


def _from_ini(parser: configparser.ConfigParser, path: Path, environment: str) -> MetricsStoreSettings | None:
    """The store of the ``[reporting]`` section, None for ``datastore.type = in-memory`` or none."""
    kind = parser.get("reporting", "datastore.type", fallback="in-memory").strip() or "in-memory"
    if kind == "in-memory":
        return None
    if kind != "elasticsearch":
        raise ConfigError(
            f"{path} [reporting] datastore.type = {kind!r}: esbench knows 'elasticsearch' and "
            "'in-memory' (as Rally does)."
        )
    host = parser.get("reporting", "datastore.host", fallback="").strip()
    port = parser.get("reporting", "datastore.port", fallback="").strip()
    if not host or not port.isdigit():
        raise ConfigError(
            f"{path} [reporting]: datastore.type = elasticsearch needs datastore.host and a numeric "
            f"datastore.port (found host {host!r}, port {port!r})."
        )
    secure = _ini_bool(parser, path, "datastore.secure", False)
    mode = parser.get("reporting", "datastore.ssl.verification_mode", fallback="full").strip() or "full"
    if mode not in ("full", "none"):
        raise ConfigError(
            f"{path} [reporting] datastore.ssl.verification_mode = {mode!r}: write 'full' or 'none'."
        )
    ca = parser.get("reporting", "datastore.ssl.certificate_authorities", fallback="").strip()
    if ca and not Path(ca).expanduser().is_file():
        raise ConfigError(f"{path} [reporting] datastore.ssl.certificate_authorities = {ca!r}: no such file.")
    user = _env(RALLY_ENV_USER, ENV_USER) or parser.get("reporting", "datastore.user", fallback="").strip()
    password = _env(RALLY_ENV_PASSWORD, ENV_PASSWORD) or parser.get(
        "reporting", "datastore.password", fallback=""
    )
    api_key = (
        _env(RALLY_ENV_API_KEY, ENV_API_KEY)
        or parser.get("reporting", "datastore.api_key", fallback="").strip()
    )
    if user and api_key:
        raise ConfigError(
            f"{path} [reporting]: both datastore.user and datastore.api_key are set; keep one (as Rally)."
        )
    if user and not password:
        raise ConfigError(
            f"{path} [reporting]: datastore.user is set but no datastore.password (or "
            f"{RALLY_ENV_PASSWORD} / {ENV_PASSWORD})."
        )
    scheme = "https" if secure else "http"
    netloc = f"[{host}]" if ":" in host else host
    return MetricsStoreSettings(
        hosts=(f"{scheme}://{netloc}:{int(port)}",),
        username=user or None,
        password=password if user else None,
        api_key=api_key or None,
        verify_certs=mode != "none",
        ca_certs=Path(ca).expanduser() if ca else None,
        environment=environment,
        probe_cluster_version=_ini_bool(parser, path, "datastore.probe.cluster_version", True),
    )


def resolve_metrics_store(
    url: str | None = None,
    *,
    username: str | None = None,
    password: str | None = None,
    api_key: str | None = None,
    ca_certs: Path | None = None,
    verify_certs: bool = True,
    index_prefix: str = DEFAULT_PREFIX,
    ini: Path | None = None,
) -> MetricsStoreSettings | None:
    """The metrics store a command writes to or reads from; None when none is configured.

    ``url`` (``--metrics-store``) or ``$ESBENCH_METRICS_STORE`` wins, with the other arguments
    (options) and the ``ESBENCH_METRICS_STORE_*`` variables for credentials; otherwise the
    ``[reporting]`` section of ``ini`` (default ``<esbench home>/esbench.ini``) with rally.ini's keys
    (esrally/metrics.py ``EsClientFactory``: ``datastore.secure`` picks https,
    ``datastore.ssl.verification_mode = none`` turns verification off). The ``environment`` is
    ``[system] env.name`` of the same file (default ``local``) either way.

    Raises:
        ConfigError: a malformed URL or ini (the message names the file and key; never a password).
    """
    path = ini if ini is not None else config_file()
    parser = _read_ini(path)
    environment = parser.get("system", "env.name", fallback="").strip() or DEFAULT_ENVIRONMENT
    url = url or os.environ.get(ENV_URL)
    if url:
        return MetricsStoreSettings.from_env(
            url,
            username=username or _env(ENV_USER, RALLY_ENV_USER),
            password=password or _env(ENV_PASSWORD, RALLY_ENV_PASSWORD),
            api_key=api_key or _env(ENV_API_KEY, RALLY_ENV_API_KEY),
            ca_certs=ca_certs,
            verify_certs=verify_certs,
            index_prefix=index_prefix,
            environment=environment,
        )
    return _from_ini(parser, path, environment)


def redact_url(url: str) -> str:
    """``url`` with any userinfo replaced by ``***`` (for messages)."""
    scheme, sep, rest = url.rpartition("://")
    if "@" not in rest:
        return url
    return f"{scheme}{sep}***@{rest.rsplit('@', 1)[1]}"


def _client(settings: MetricsStoreSettings) -> Elasticsearch:
    from elasticsearch import Elasticsearch

    kwargs: dict[str, Any] = {
        "hosts": list(settings.hosts),
        "request_timeout": settings.timeout_s,
        "verify_certs": settings.verify_certs,
    }
    if settings.ca_certs is not None:
        kwargs["ca_certs"] = str(settings.ca_certs)
    if not settings.verify_certs:
        kwargs["ssl_show_warn"] = False
    if settings.api_key:
        kwargs["api_key"] = settings.api_key
    elif settings.username is not None:
        kwargs["basic_auth"] = (settings.username, settings.password or "")
    return Elasticsearch(**kwargs)


@contextlib.contextmanager
def metrics_store_client(settings: MetricsStoreSettings, action: str) -> Iterator[Elasticsearch]:
    """An elasticsearch-py client of the metrics store, closed on exit, whose errors become one
    :class:`StoreError` each.

    ``action`` names what the caller does (``"export"``, ``"search"``) in the message of a
    rejection. The messages name the hosts without credentials (``settings.display_url``).

    Raises:
        StoreError: the store answered an error status (with a credentials hint for 401/403) or
            could not be reached.
    """
    from elasticsearch import ApiError, TransportError

    where = f"the metrics store {settings.display_url}"
    try:
        with _client(settings) as es:
            yield es
    except ApiError as e:
        hint = " Check the user name and password or API key." if e.meta.status in (401, 403) else ""
        raise StoreError(
            f"{where} rejected the {action} (HTTP {e.meta.status}: {e.message}).{hint}", e
        ) from e
    except TransportError as e:
        raise StoreError(
            f"Cannot reach {where}: {type(e).__name__}: {e.message}. Check --metrics-store.", e
        ) from e
