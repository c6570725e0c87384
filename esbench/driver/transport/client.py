"""Elasticsearch client options (Rally's ``--client-options``) and the per-client factory.

``--client-options`` is Rally's ``k:v,k:v`` list (``timeout:60,use_ssl:true,basic_auth_user:'elastic'``;
a value in single quotes is a string, else int, float, true/false, none, else a string), inline
JSON (``{"default": {...}}`` as Rally's multi-cluster form, or a flat object) or a ``.json`` file.

Credentials come from the options or, when absent there, from the environment:
``ESBENCH_USERNAME``/``ESBENCH_PASSWORD`` (basic auth) and ``ESBENCH_API_KEY``. They are never
part of ``repr``/``str``, logs or messages. TLS certificate verification is on unless
``verify_certs:false``.

Every client of the driver gets its own :class:`EsbenchClient`: an ``AsyncElasticsearch`` whose
nodes are :class:`esbench.driver.transport.nodes.TimedAiohttpNode` (for plugin runners that use the client
API) plus ``client.http``, the :class:`esbench.driver.transport.http.HttpTransport` the built-in runners send
through: by default the lean :class:`esbench.driver.transport.rawhttp.RawHttpTransport` (one keep-alive
connection per client, like Rally). Clients live for the whole race in their worker, so connections are reused
from task to task. Against OpenSearch (``ClientOptions.distribution_flavor``) the client API's nodes
are :class:`esbench.driver.transport.target.PlainMediaTypeNode` (plain JSON media types; see that module).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit, urlunsplit

from esbench.driver.settings import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from esbench.driver.settings import ClientOptions as ClientOptions  # its old home; imports keep working
from esbench.driver.transport.client_checks import check_client_options
from esbench.driver.transport.http import HttpTransport
from esbench.driver.transport.rawhttp import RawHttpTransport, ssl_context_for
from esbench.exceptions import ConfigError
from esbench.racelog import secrets_of

if TYPE_CHECKING:
    import ssl

    from esbench.driver.transport.esclient import EsbenchClient as EsbenchClient

ENV_USERNAME = "ESBENCH_USERNAME"
ENV_PASSWORD = "ESBENCH_PASSWORD"
ENV_API_KEY = "ESBENCH_API_KEY"

_BOOL_KEYS = {"use_ssl", "verify_certs", "http_compress"}
_ALIASES = {"compressed": "http_compress", "request_timeout": "timeout"}
#: Rally options that esbench accepts and ignores (they tune Rally's own client).
_IGNORED = {"enable_cleanup_closed", "ssl_show_warn", "max_retries", "retry_on_timeout", "trace"}


def _scalar(text: str) -> str | int | float | bool | None:
    if text.startswith("'") and text.endswith("'") and len(text) >= 2:
        return text[1:-1]
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    return text


#: Option names whose values are secrets (also when misspelt: anything that looks like one).
_SECRET_WORDS = re.compile(r"pass|secret|token|api[_-]?key|auth", re.IGNORECASE)


def _entries(text: str) -> list[str]:
    """``text`` split at commas outside single quotes (a quoted value may contain commas)."""
    entries: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == "'":
            quoted = not quoted
        if char == "," and not quoted:
            entries.append("".join(current))
            current = []
        else:
            current.append(char)
    entries.append("".join(current))
    return entries


def _shown(entry: str, previous: str) -> str:
    """An entry as it may appear in a message: hidden if it, or the entry before it (an unquoted
    value cut at a comma), may hold a secret; only an option name is kept."""
    if _SECRET_WORDS.search(entry) is None and _SECRET_WORDS.search(previous) is None:
        return entry
    name = re.match(r"\w*", entry.strip())
    known = {f.name for f in fields(ClientOptions)} | set(_ALIASES) | {"basic_auth"}
    if name is not None and name.group(0) in known:
        return f"{name.group(0)}... (value hidden)"
    return "(hidden: it may hold a secret)"


def _parse_kv(text: str) -> dict[str, object]:
    values: dict[str, object] = {}
    previous = ""
    for part in _entries(text):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition(":")
        if not sep or not key.strip():
            raise ConfigError(
                f"Invalid --client-options entry '{_shown(part, previous)}': expected 'key:value' pairs "
                f'separated by commas, e.g. --client-options="timeout:60,use_ssl:true,verify_certs:true" '
                f"(quote values that contain commas: basic_auth_password:'a,b')."
            )
        values[key.strip()] = _scalar(value.strip())
        previous = part
    return values


def _as_bool(key: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ConfigError(f"--client-options: '{key}' must be true or false, got {value!r}.")


#: Fields of ClientOptions that esbench sets itself (from the detected target), never the user.
_DETECTED = frozenset({"distribution_flavor", "distribution_version"})


def client_options_from_mapping(values: Mapping[str, Any]) -> ClientOptions:
    """Build :class:`ClientOptions` from already parsed key/values (Rally's option names).

    Raises:
        esbench.exceptions.ConfigError: unknown keys (listed with the known ones) or bad values,
            also TLS files that do not exist or do not load (:func:`check_client_options`).
    """
    known = {f.name for f in fields(ClientOptions)} - _DETECTED
    kwargs: dict[str, Any] = {}
    unknown = []
    for raw_key, value in values.items():
        key = _ALIASES.get(raw_key, raw_key)
        if key in _IGNORED:
            continue
        if key == "basic_auth" and isinstance(value, list | tuple) and len(value) == 2:
            kwargs["basic_auth_user"], kwargs["basic_auth_password"] = (str(v) for v in value)
            continue
        if key not in known:
            # A key that is not a plain name may be a mangled "key value" entry: hide it if it
            # may hold a secret (a misspelt option name is still shown).
            plain = re.fullmatch(r"[\w-]+", str(raw_key)) is not None
            unknown.append(str(raw_key) if plain or not _SECRET_WORDS.search(str(raw_key)) else "(hidden)")
            continue
        if key in _BOOL_KEYS:
            value = _as_bool(key, value)
        elif key == "timeout" and value is not None:  # None: no timeout, as in Rally
            try:
                if isinstance(value, bool):
                    raise TypeError(value)
                value = float(value)
            except (TypeError, ValueError):
                raise ConfigError(
                    f"--client-options: 'timeout' must be a number of seconds, or None for no timeout, "
                    f"got {value!r}."
                ) from None
        elif key == "max_connections":
            try:
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise TypeError(value)
                value = int(value)
            except (TypeError, ValueError):
                raise ConfigError(
                    f"--client-options: 'max_connections' must be a number, got {value!r}."
                ) from None
        elif value is not None:
            value = str(value)
        kwargs[key] = value
    if unknown:
        raise ConfigError(
            f"Unknown --client-options {', '.join(sorted(unknown))}. Known options: "
            f"{', '.join(sorted(known | set(_ALIASES) | _IGNORED))}."
        )
    options = ClientOptions(**kwargs)
    check_client_options(options)
    return options


def parse_client_options(text: str | None) -> ClientOptions:
    """Parse Rally's ``--client-options`` (see module doc); empty text gives the defaults. Of the
    multi-cluster form only the ``default`` cluster's (:mod:`esbench.driver.transport.clusters`
    reads every cluster's).

    Raises:
        esbench.exceptions.ConfigError: unreadable file, invalid JSON, bad ``k:v`` syntax, unknown
            keys or bad values; the message names the option.
    """
    if text is None or not text.strip():
        return ClientOptions()
    values = client_options_values(text)
    default = values.get("default")
    return client_options_from_mapping(default if isinstance(default, Mapping) else values)


def client_options_values(text: str) -> Mapping[str, Any]:
    """``--client-options`` text (``k:v`` list, inline JSON or a ``.json`` file) as the mapping it
    gives, not yet checked.

    Raises:
        esbench.exceptions.ConfigError: unreadable file, invalid JSON, bad ``k:v`` syntax, not an object.
    """
    text = text.strip()
    values: object
    if text.endswith(".json"):
        path = Path(text).expanduser()
        try:
            values = json.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            raise ConfigError(f"Cannot read the --client-options file '{path}': {e.strerror}.") from e
        except ValueError as e:
            raise ConfigError(f"The --client-options file '{path}' is not valid JSON: {e}.") from e
    elif text.startswith("{"):
        try:
            values = json.loads(text)
        except ValueError as e:
            raise ConfigError(f"--client-options is not valid JSON: {e}.") from e
    else:
        values = _parse_kv(text)
    if not isinstance(values, Mapping):
        raise ConfigError("--client-options must be key:value pairs or a JSON object.")
    return values


# --------------------------------------------------------------------------------- credentials


@dataclass(frozen=True, kw_only=True)
class Credentials:
    """Resolved credentials (options first, then environment). Never printed."""

    username: str | None = None
    password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)

    def headers(self) -> dict[str, str]:
        """The ``authorization`` header for these credentials (empty without credentials)."""
        if self.api_key:
            key = self.api_key
            if ":" in key:
                key = base64.b64encode(key.encode("utf-8")).decode("ascii")
            return {"authorization": f"ApiKey {key}"}
        if self.username is not None:
            token = base64.b64encode(f"{self.username}:{self.password or ''}".encode()).decode("ascii")
            return {"authorization": f"Basic {token}"}
        return {}


def resolve_credentials(options: ClientOptions, environ: Mapping[str, str] | None = None) -> Credentials:
    """Credentials from the options, falling back to ``ESBENCH_USERNAME``/``ESBENCH_PASSWORD``/
    ``ESBENCH_API_KEY`` (an API key wins over basic auth)."""
    env = os.environ if environ is None else environ
    api_key = options.api_key or env.get(ENV_API_KEY) or None
    username = options.basic_auth_user or env.get(ENV_USERNAME) or None
    password = (
        options.basic_auth_password if options.basic_auth_password is not None else env.get(ENV_PASSWORD)
    )
    return Credentials(username=username, password=password, api_key=api_key)


# ------------------------------------------------------------------------------------- hosts


def host_for_display(host: str) -> str:
    """``host`` (a URL or ``host:port``) without ``user:password@``: use it to show hosts in
    messages and logs."""
    scheme, sep, rest = host.rpartition("://")
    return f"{scheme}{sep}{rest.rpartition('@')[2]}"


def host_urls(hosts: Sequence[str], *, use_ssl: bool) -> tuple[str, ...]:
    """``host:port`` strings as URLs (``https`` when ``use_ssl``); URLs with a scheme are kept.

    ``user:password@`` in a host is kept (see :func:`split_credentials`) but never shown in a
    message.

    Raises:
        esbench.exceptions.ConfigError: no hosts, or a host without a port.
    """
    if not hosts:
        raise ConfigError("No target hosts. Give --target-hosts=HOST:PORT[,HOST:PORT...].")
    if hosts[0].strip().startswith("{"):
        raise ConfigError(
            "The JSON form of --target-hosts (clusters by name) is for 'esbench race' only; give this "
            "command the default cluster's hosts as HOST:PORT[,HOST:PORT...]."
        )
    scheme = "https" if use_ssl else "http"
    urls = []
    for raw in hosts:
        host = raw.strip()
        if "://" in host:
            urls.append(host.rstrip("/"))
            continue
        _, sep, port = host.rpartition("@")[2].rpartition(":")
        if not sep or not port.isdigit():
            raise ConfigError(
                f"Target host '{host_for_display(raw.strip())}' has no port. Write it as HOST:PORT, "
                f"e.g. 127.0.0.1:9200."
            )
        urls.append(f"{scheme}://{host}")
    return tuple(urls)


def split_credentials(urls: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, str] | None]:
    """Move ``user:password@`` out of node URLs: ``(urls without it, (user, password) or None)``.

    The user and password are percent-decoded (as elasticsearch-py does).

    Raises:
        esbench.exceptions.ConfigError: the URLs carry different credentials (the message shows
            the hosts, never the credentials).
    """
    clean: list[str] = []
    found: dict[tuple[str, str], str] = {}
    for url in urls:
        parts = urlsplit(url)
        if parts.username is None and "@" not in parts.netloc:
            clean.append(url)
            continue
        userinfo, _, hostport = parts.netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        clean.append(urlunsplit(parts._replace(netloc=hostport)))
        found.setdefault((unquote(user), unquote(password)), hostport)
    if len(found) > 1:
        raise ConfigError(
            f"The target hosts {', '.join(sorted(found.values()))} carry different credentials in "
            f"their URLs. Give one user for all hosts, preferably with --client-options "
            f"basic_auth_user/basic_auth_password or ESBENCH_USERNAME/ESBENCH_PASSWORD."
        )
    return tuple(clean), next(iter(found), None)


@dataclass(frozen=True, kw_only=True)
class ConnectionSettings:
    """Everything a worker needs to open clients (picklable; holds credentials, never printed).
    ``others``: the other clusters' of a multi-cluster race by name (:mod:`.clusters`)."""

    urls: tuple[str, ...]
    options: ClientOptions
    credentials: Credentials = field(repr=False)
    others: tuple[tuple[str, ConnectionSettings], ...] = ()

    @classmethod
    def create(cls, hosts: Sequence[str], options: ClientOptions) -> ConnectionSettings:
        """Resolve hosts and credentials (environment read here, in the coordinator).

        Credentials in the host URLs (``https://user:password@host:9200``) become the basic-auth
        credentials and are removed from the URLs. Order: ``--client-options``, then the URLs,
        then the environment.

        Raises:
            esbench.exceptions.ConfigError: bad hosts; credentials both in the URLs and in the
                options; different credentials in different URLs.
        """
        urls, userinfo = split_credentials(host_urls(hosts, use_ssl=options.use_ssl))
        credentials = resolve_credentials(options)
        if userinfo is not None:
            if options.basic_auth_user is not None or options.api_key is not None:
                raise ConfigError(
                    "The target hosts carry credentials (user:password@host) and --client-options "
                    "gives credentials too. Give them in one place only."
                )
            credentials = Credentials(username=userinfo[0], password=userinfo[1])
        return cls(urls=urls, options=options, credentials=credentials)


def race_secrets(hosts: Sequence[str], options: ClientOptions) -> tuple[str, ...]:
    """What the race log must mask (:func:`esbench.racelog.secrets_of`) for a race against ``hosts``
    with ``options``: credentials from the options, the environment and ``user:password@`` in the
    host URLs. With hosts that do not parse, those of the options and the environment (the race
    itself reports the bad hosts)."""
    credentials = resolve_credentials(options)
    if hosts:
        with contextlib.suppress(ConfigError):
            credentials = ConnectionSettings.create(hosts, options).credentials
    return secrets_of(credentials)


def __getattr__(name: str) -> object:
    # EsbenchClient lives in esclient (it subclasses AsyncElasticsearch): importing this module for
    # ConnectionSettings or the fast path does not import elasticsearch-py (issue 25, worker memory).
    if name == "EsbenchClient":
        from esbench.driver.transport.esclient import EsbenchClient

        return EsbenchClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Headers of the fast path (elasticsearch-py negotiates its own for API calls).
BASE_HEADERS = {"content-type": "application/json", "accept": "application/json"}


@functools.lru_cache(maxsize=8)
def _shared_ssl_context(
    verify_certs: bool, ca_certs: str | None, client_cert: str | None, client_key: str | None
) -> ssl.SSLContext:
    # One TLS context per process (worker) and settings: loading CA files is slow, and a context
    # can serve any number of connections.
    return ssl_context_for(
        verify_certs=verify_certs, ca_certs=ca_certs, client_cert=client_cert, client_key=client_key
    )


def create_client(
    settings: ConnectionSettings, *, http: HttpTransport | None = None, fast_path: str = "raw"
) -> EsbenchClient:
    """A new client for one driver client.

    Args:
        settings: hosts, options and credentials.
        http: the transport of ``client.http`` (e.g. static responses); default: see ``fast_path``.
        fast_path: ``"raw"`` (:class:`esbench.driver.transport.rawhttp.RawHttpTransport`, the default) or
            ``"elasticsearch-py"`` (:class:`esbench.driver.transport.nodes.NodeHttpTransport` through the
            client's aiohttp nodes).
    """
    # Here, not at the top: they import elasticsearch-py and elastic_transport with aiohttp, which a
    # worker that only uses the fast path does without (the lazyclient module).
    from esbench.driver.transport.esclient import EsbenchClient
    from esbench.driver.transport.nodes import NodeHttpTransport, TimedAiohttpNode
    from esbench.driver.transport.target import PlainMediaTypeNode, uses_compat_media_types

    options = settings.options
    compat = uses_compat_media_types(options.distribution_flavor, options.distribution_version)
    kwargs: dict[str, object] = {
        "request_timeout": options.timeout,
        "node_class": TimedAiohttpNode if compat else PlainMediaTypeNode,
        # A benchmark must see every failure: no transparent retries.
        "max_retries": 0,
        "retry_on_timeout": False,
        "http_compress": options.http_compress,
    }
    if options.max_connections:
        kwargs["connections_per_node"] = options.max_connections
    if any(url.startswith("https://") for url in settings.urls):
        kwargs["verify_certs"] = options.verify_certs
        if not options.verify_certs:
            kwargs["ssl_show_warn"] = False
        if options.ca_certs:
            kwargs["ca_certs"] = options.ca_certs
        if options.client_cert:
            kwargs["client_cert"] = options.client_cert
        if options.client_key:
            kwargs["client_key"] = options.client_key
    credentials = settings.credentials
    if credentials.api_key:
        key = credentials.api_key
        kwargs["api_key"] = tuple(key.split(":", 1)) if ":" in key else key
    elif credentials.username is not None:
        kwargs["basic_auth"] = (credentials.username, credentials.password or "")
    client = EsbenchClient(list(settings.urls), **kwargs)
    if http is None:
        if fast_path == "elasticsearch-py":
            headers = {**BASE_HEADERS, **credentials.headers()}
            if options.http_compress:
                headers["accept-encoding"] = "gzip"
            http = NodeHttpTransport(client.transport.node_pool.all(), headers)
        else:
            http = raw_transport(settings)
    client.http = http
    return client


def raw_transport(settings: ConnectionSettings) -> RawHttpTransport:
    """The fast path of one client (:class:`esbench.driver.transport.rawhttp.RawHttpTransport` to
    ``settings.urls``), as :func:`create_client` gives ``client.http`` by default; needs no
    elasticsearch-py."""
    options = settings.options
    headers = {**BASE_HEADERS, **settings.credentials.headers()}
    secure = any(url.startswith("https://") for url in settings.urls)
    return RawHttpTransport(
        settings.urls,
        headers,
        timeout=options.timeout,
        ssl_context=_shared_ssl_context(
            options.verify_certs, options.ca_certs, options.client_cert, options.client_key
        )
        if secure
        else None,
        http_compress=options.http_compress,
    )
