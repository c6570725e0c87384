"""Connection settings of the driver's clients: Rally's ``--client-options``, credentials and hosts.

``--client-options`` is Rally's ``k:v,k:v`` list (``timeout:60,use_ssl:true,basic_auth_user:'elastic'``;
a value in single quotes is a string, else int, float, true/false, none, else a string), inline
JSON (``{"default": {...}}`` as Rally's multi-cluster form, or a flat object) or a ``.json`` file.

Credentials come from the options or, when absent there, from the environment:
``ESBENCH_USERNAME``/``ESBENCH_PASSWORD`` (basic auth) and ``ESBENCH_API_KEY``. They are never
part of ``repr``/``str``, logs or messages. TLS certificate verification is on unless
``verify_certs:false``.

This module imports neither elasticsearch-py nor aiohttp, so settings and the command line can use
it cheaply; :mod:`esbench.driver.client` builds the clients from :class:`ConnectionSettings`.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from esbench.exceptions import ConfigError

ENV_USERNAME = "ESBENCH_USERNAME"
ENV_PASSWORD = "ESBENCH_PASSWORD"
ENV_API_KEY = "ESBENCH_API_KEY"

#: Rally's default client timeout in seconds.
DEFAULT_TIMEOUT = 60.0

_SECRET = "*****"


@dataclass(frozen=True, kw_only=True)
class ClientOptions:
    """How the driver talks to Elasticsearch.

    Attributes:
        timeout: client-side request timeout in seconds (Rally's default: 60).
        use_ssl: connect with TLS (``https``) to hosts given without a scheme.
        verify_certs: verify the server certificate (default True).
        ca_certs: CA bundle file or directory for verification.
        client_cert / client_key: client certificate and key files (mutual TLS).
        basic_auth_user / basic_auth_password: basic authentication.
        api_key: API key (``id:key`` or the encoded form).
        http_compress: gzip request bodies (and accept compressed responses).
        max_connections: connections per node and client (default: elasticsearch-py's).
        distribution_flavor / distribution_version: the target's product (``elasticsearch`` or
            ``opensearch``) and version as detected by :mod:`esbench.driver.target`; set by race
            control, not by ``--client-options``. They decide the media types the client API sends.
    """

    timeout: float = DEFAULT_TIMEOUT
    use_ssl: bool = False
    verify_certs: bool = True
    ca_certs: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    basic_auth_user: str | None = None
    basic_auth_password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    http_compress: bool = False
    max_connections: int | None = None
    distribution_flavor: str | None = None
    distribution_version: str | None = None

    def __str__(self) -> str:
        return repr(self)

    def describe(self) -> dict[str, Any]:
        """The options as a dict safe to show or store: secrets replaced by ``*****``."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for secret in ("basic_auth_password", "api_key"):
            if out[secret] is not None:
                out[secret] = _SECRET
        return out


_BOOL_KEYS = {"use_ssl", "verify_certs", "http_compress"}
_ALIASES = {"compressed": "http_compress", "request_timeout": "timeout"}
#: Rally options that esbench accepts and ignores (they tune Rally's own client).
_IGNORED = {"enable_cleanup_closed", "ssl_show_warn", "max_retries", "retry_on_timeout", "trace"}


def _scalar(text: str) -> Any:
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


def _parse_kv(text: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
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


def _as_bool(key: str, value: Any) -> bool:
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
        esbench.exceptions.ConfigError: unknown keys (listed with the known ones) or bad values.
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
        elif key == "timeout":
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ConfigError(
                    f"--client-options: 'timeout' must be a number of seconds, got {value!r}."
                ) from None
        elif key == "max_connections":
            try:
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
    return ClientOptions(**kwargs)


def parse_client_options(text: str | None) -> ClientOptions:
    """Parse Rally's ``--client-options`` (see module doc); empty text gives the defaults.

    Raises:
        esbench.exceptions.ConfigError: unreadable file, invalid JSON, bad ``k:v`` syntax, unknown
            keys or bad values; the message names the option.
    """
    if text is None or not text.strip():
        return ClientOptions()
    text = text.strip()
    values: Any
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
    if isinstance(values.get("default"), Mapping):
        values = values["default"]
    return client_options_from_mapping(values)


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
    """Everything a worker needs to open clients (picklable; holds credentials, never printed)."""

    urls: tuple[str, ...]
    options: ClientOptions
    credentials: Credentials = field(repr=False)

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
