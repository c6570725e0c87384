"""Where the Elasticsearch metrics store is, how esbench logs in, and its client.

Shared by the writer (:mod:`esbench.results.es_export`) and the readers. :func:`resolve_metrics_store`
is the one place that decides where the store is, from (first match wins):

1. ``--metrics-store=URL`` or ``$ESBENCH_METRICS_STORE``;
2. the ``[reporting]`` section of ``<esbench home>/esbench.ini`` with rally.ini's keys
   (``datastore.type = elasticsearch``, ``datastore.host``, ``datastore.port``, ``datastore.secure``,
   ``datastore.ssl.verification_mode``, ``datastore.ssl.certificate_authorities``,
   ``datastore.user``, ``datastore.password``, ``datastore.api_key``,
   ``datastore.probe.cluster_version``, ``datastore.number_of_shards``,
   ``datastore.number_of_replicas``), so a Rally user copies the section across; or with
   OSB 2.4.0's benchmark.ini keys, the same but ``datastore.type = opensearch`` (OSB 1.x called the
   section ``[results_publishing]``, which is read too);

and the ``environment`` of the documents from ``[system] env.name`` (both tools' default ``local``).

The layout (:mod:`esbench.results.store_layout`) follows the tool the configuration is written for:
``datastore.type = elasticsearch`` is Rally's (``rally-*`` indices), ``opensearch`` is OSB's
(``benchmark-*``), as each tool's ``metrics_store_class`` decides; ``--metrics-store-layout``
(``$ESBENCH_METRICS_STORE_LAYOUT``) says it explicitly and wins.

Credentials come from the URL userinfo (``https://user:pass@host:9200``), options, the ini or
environment variables (``ESBENCH_METRICS_STORE_USER``, ``ESBENCH_METRICS_STORE_PASSWORD``,
``ESBENCH_METRICS_STORE_API_KEY``; Rally's ``RALLY_REPORTING_DATASTORE_*`` and OSB's
``OSB_DATASTORE_PASSWORD`` too); they are
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
from esbench.results.store_layout import LAYOUTS, RALLY, LayoutName, StoreLayout

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
#: OSB's variable for the password (osbenchmark/metrics.py, ``OsClientFactory``).
OSB_ENV_PASSWORD = "OSB_DATASTORE_PASSWORD"
ENV_LAYOUT = "ESBENCH_METRICS_STORE_LAYOUT"
#: ``datastore.type`` -> the layout of the tool that takes it (esrally/metrics.py and
#: osbenchmark/metrics.py, ``metrics_store_class``).
DATASTORE_TYPES: dict[str, LayoutName] = {"elasticsearch": LayoutName.RALLY, "opensearch": LayoutName.OSB}
#: The sections that configure the store: Rally's and OSB 2.x's, and OSB 1.x's name of it.
STORE_SECTIONS = ("reporting", "results_publishing")
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
            answer with a version the layout's templates need (``datastore.probe.cluster_version``,
            default true).
        layout: Rally's or OSB's (:data:`~esbench.results.store_layout.RALLY` by default): the
            layout the writer writes.
        read_layouts: the layouts the readers read (besides esbench's older one): all of them,
            or only the one chosen explicitly (``--metrics-store-layout``).
        number_of_shards / number_of_replicas: put into the templates' index settings
            (``datastore.number_of_shards`` / ``datastore.number_of_replicas``, both tools'
            ``IndexTemplateProvider``); None: the store's defaults.
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
    layout: StoreLayout = RALLY
    read_layouts: tuple[StoreLayout, ...] = tuple(LAYOUTS.values())
    number_of_shards: int | None = None
    number_of_replicas: int | None = None

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
        layout: StoreLayout = RALLY,
        read_layouts: tuple[StoreLayout, ...] = tuple(LAYOUTS.values()),
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
            layout=layout,
            read_layouts=read_layouts,
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


def _ini_bool(parser: configparser.ConfigParser, path: Path, section: str, key: str, default: bool) -> bool:
    raw = parser.get(section, key, fallback="").strip()
    if not raw:
        return default
    if raw.lower() in ("true", "yes", "1", "on"):
        return True
    if raw.lower() in ("false", "no", "0", "off"):
        return False
    raise ConfigError(f"{path} [{section}] {key} = {raw!r}: write true or false.")


def _ini_count(
    parser: configparser.ConfigParser, path: Path, section: str, key: str, least: int
) -> int | None:
    raw = parser.get(section, key, fallback="").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < least:
        raise ConfigError(f"{path} [{section}] {key} = {raw!r}: write a whole number >= {least}.")
    return int(raw)


def _store_section(parser: configparser.ConfigParser, path: Path) -> tuple[str, str] | None:
    """(section, datastore.type) of the one section that configures a store, None if none does.

    Raises:
        ConfigError: both ``[reporting]`` and ``[results_publishing]`` configure one, or an unknown type.
    """
    found = []
    for section in STORE_SECTIONS:
        kind = parser.get(section, "datastore.type", fallback="in-memory").strip() or "in-memory"
        if kind == "in-memory":
            continue
        if kind not in DATASTORE_TYPES:
            raise ConfigError(
                f"{path} [{section}] datastore.type = {kind!r}: esbench knows 'elasticsearch' (Rally's "
                "layout), 'opensearch' (OpenSearch Benchmark's) and 'in-memory'."
            )
        found.append((section, kind))
    if len(found) > 1:
        raise ConfigError(
            f"{path}: both [reporting] and [results_publishing] configure a metrics store; keep one "
            "([results_publishing] is OpenSearch Benchmark 1.x's name of [reporting])."
        )
    return found[0] if found else None


def _from_ini(
    parser: configparser.ConfigParser, path: Path, environment: str, layout: StoreLayout | None
) -> MetricsStoreSettings | None:
    """The store of the ``[reporting]`` (or ``[results_publishing]``) section, None for
    ``datastore.type = in-memory`` or none. ``layout``: the explicit one, else the type's."""
    found = _store_section(parser, path)
    if found is None:
        return None
    section, kind = found

    def get(key: str, default: str = "") -> str:
        return parser.get(section, key, fallback=default).strip()

    where = f"{path} [{section}]"
    host, port = get("datastore.host"), get("datastore.port")
    if not host or not port.isdigit():
        raise ConfigError(
            f"{where}: datastore.type = {kind} needs datastore.host and a numeric "
            f"datastore.port (found host {host!r}, port {port!r})."
        )
    secure = _ini_bool(parser, path, section, "datastore.secure", False)
    mode = get("datastore.ssl.verification_mode", "full") or "full"
    if mode not in ("full", "none"):
        raise ConfigError(f"{where} datastore.ssl.verification_mode = {mode!r}: write 'full' or 'none'.")
    ca = get("datastore.ssl.certificate_authorities")
    if ca and not Path(ca).expanduser().is_file():
        raise ConfigError(f"{where} datastore.ssl.certificate_authorities = {ca!r}: no such file.")
    user = _env(RALLY_ENV_USER, ENV_USER) or get("datastore.user")
    # Not stripped: a password may end in a space.
    password = _env(OSB_ENV_PASSWORD, RALLY_ENV_PASSWORD, ENV_PASSWORD) or parser.get(
        section, "datastore.password", fallback=""
    )
    api_key = _env(RALLY_ENV_API_KEY, ENV_API_KEY) or get("datastore.api_key")
    if user and api_key:
        raise ConfigError(f"{where}: both datastore.user and datastore.api_key are set; keep one (as Rally).")
    if user and not password:
        raise ConfigError(
            f"{where}: datastore.user is set but no datastore.password (or {RALLY_ENV_PASSWORD} / "
            f"{OSB_ENV_PASSWORD} / {ENV_PASSWORD})."
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
        probe_cluster_version=_ini_bool(parser, path, section, "datastore.probe.cluster_version", True),
        layout=layout or LAYOUTS[DATASTORE_TYPES[kind]],
        read_layouts=(layout,) if layout else tuple(LAYOUTS.values()),
        number_of_shards=_ini_count(parser, path, section, "datastore.number_of_shards", 1),
        number_of_replicas=_ini_count(parser, path, section, "datastore.number_of_replicas", 0),
    )


def parse_layout(value: str | None, source: str = "--metrics-store-layout") -> StoreLayout | None:
    """``rally`` / ``osb`` -> the :class:`~esbench.results.store_layout.StoreLayout`; None for None
    or ``""``.

    Raises:
        ConfigError: another value (names ``source``).
    """
    if not value:
        return None
    try:
        return LAYOUTS[LayoutName(value.strip().lower())]
    except ValueError:
        raise ConfigError(
            f"{source} = {value!r}: write 'rally' (rally-* indices, Rally 2.13) or 'osb' (benchmark-* "
            "indices, OpenSearch Benchmark 2.4.0)."
        ) from None


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
    layout: str | None = None,
) -> MetricsStoreSettings | None:
    """The metrics store a command writes to or reads from; None when none is configured.

    ``url`` (``--metrics-store``) or ``$ESBENCH_METRICS_STORE`` wins, with the other arguments
    (options) and the ``ESBENCH_METRICS_STORE_*`` variables for credentials; otherwise the
    ``[reporting]`` section of ``ini`` (default ``<esbench home>/esbench.ini``) with rally.ini's or
    benchmark.ini's keys (esrally/metrics.py ``EsClientFactory``, osbenchmark/metrics.py
    ``OsClientFactory``: ``datastore.secure`` picks https, ``datastore.ssl.verification_mode =
    none`` turns verification off), or OSB 1.x's ``[results_publishing]``. The ``environment`` is
    ``[system] env.name`` of the same file (default ``local``) either way.

    The layout written: ``layout`` (``--metrics-store-layout``, ``rally`` or ``osb``) or
    ``$ESBENCH_METRICS_STORE_LAYOUT``; else the section's ``datastore.type`` (``opensearch``: OSB's;
    with a URL too, so that an OSB user's esbench.ini decides); else Rally's. The layouts read: the
    one chosen explicitly, else all.

    Raises:
        ConfigError: a malformed URL, ini or layout (the message names the file and key, or the
            option; never a password).
    """
    path = ini if ini is not None else config_file()
    parser = _read_ini(path)
    environment = environment_name(path)
    chosen = parse_layout(layout) or parse_layout(os.environ.get(ENV_LAYOUT), f"${ENV_LAYOUT}")
    url = url or os.environ.get(ENV_URL)
    if url:
        read = (chosen,) if chosen else tuple(LAYOUTS.values())
        if chosen is None:
            found = _store_section(parser, path)
            chosen = LAYOUTS[DATASTORE_TYPES[found[1]]] if found else RALLY
        return MetricsStoreSettings.from_env(
            url,
            username=username or _env(ENV_USER, RALLY_ENV_USER),
            password=password or _env(ENV_PASSWORD, RALLY_ENV_PASSWORD, OSB_ENV_PASSWORD),
            api_key=api_key or _env(ENV_API_KEY, RALLY_ENV_API_KEY),
            ca_certs=ca_certs,
            verify_certs=verify_certs,
            index_prefix=index_prefix,
            environment=environment,
            layout=chosen,
            read_layouts=read,
        )
    return _from_ini(parser, path, environment, chosen)


def environment_name(ini: Path | None = None) -> str:
    """The environment of this esbench: ``[system] env.name`` of ``ini`` (default
    ``<esbench home>/esbench.ini``), else ``local``: Rally's ``env.name`` (esrally/resources/rally.ini),
    which Rally records in each race (``esrally/metrics.py`` ``create_race``) and ``list races`` shows.

    Raises:
        ConfigError: a malformed ini (the message names the file).
    """
    parser = _read_ini(ini if ini is not None else config_file())
    return parser.get("system", "env.name", fallback="").strip() or DEFAULT_ENVIRONMENT


def redact_url(url: str) -> str:
    """``url`` with any userinfo replaced by ``***`` (for messages)."""
    scheme, sep, rest = url.rpartition("://")
    if "@" not in rest:
        return url
    return f"{scheme}{sep}***@{rest.rsplit('@', 1)[1]}"


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
        # Imported here: elasticsearch-py is large, and most commands never reach a store.
        from esbench.results.store_client import store_client

        with store_client(settings) as es:
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
