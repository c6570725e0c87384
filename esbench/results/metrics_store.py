"""Where the Elasticsearch metrics store is, how esbench logs in, and its client.

Shared by the export (:mod:`esbench.results.es_export`) and the trend's reader
(:mod:`esbench.results.es_read`). Credentials come from the URL userinfo
(``https://user:pass@host:9200``), options or environment variables (``ESBENCH_METRICS_STORE``,
``ESBENCH_METRICS_STORE_USER``, ``ESBENCH_METRICS_STORE_PASSWORD``,
``ESBENCH_METRICS_STORE_API_KEY``); they are stripped from the URL before it is shown anywhere and
never written to the results store or logs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit, urlunsplit

from esbench.exceptions import ConfigError, StoreError

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

ENV_URL = "ESBENCH_METRICS_STORE"
ENV_USER = "ESBENCH_METRICS_STORE_USER"
ENV_PASSWORD = "ESBENCH_METRICS_STORE_PASSWORD"
ENV_API_KEY = "ESBENCH_METRICS_STORE_API_KEY"
DEFAULT_PREFIX = "esbench"


@dataclass(frozen=True, kw_only=True)
class MetricsStoreSettings:
    """Where and how to export. Secrets are excluded from ``repr``.

    Attributes:
        hosts: node URLs without credentials (``https://host:9200``).
        username / password / api_key: credentials (basic auth or API key).
        verify_certs: verify TLS certificates (default True). ca_certs: CA bundle file.
        index_prefix: prefix of index and template names (``esbench``).
        timeout_s: request timeout in seconds.
    """

    hosts: tuple[str, ...]
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    verify_certs: bool = True
    ca_certs: Path | None = None
    index_prefix: str = DEFAULT_PREFIX
    timeout_s: float = 30.0

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
        )

    @classmethod
    def from_env(cls, url: str | None = None, **kwargs: Any) -> MetricsStoreSettings | None:
        """Settings from ``url`` (an option value) or ``$ESBENCH_METRICS_STORE``; None if neither is set.

        User, password and API key default to their ``ESBENCH_METRICS_STORE_*`` variables.
        """
        url = url or os.environ.get(ENV_URL)
        if not url:
            return None
        kwargs.setdefault("username", os.environ.get(ENV_USER) or None)
        kwargs.setdefault("password", os.environ.get(ENV_PASSWORD) or None)
        kwargs.setdefault("api_key", os.environ.get(ENV_API_KEY) or None)
        return cls.from_url(url, **kwargs)

    @property
    def display_url(self) -> str:
        """The hosts for messages (never with credentials)."""
        return ",".join(self.hosts)


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
