"""Fail fast on a metrics store that nothing answers at, before a race runs for nothing.

A race exports to ``--metrics-store`` only at its end; an address with nothing listening would be
found out after the whole race (and then only warned about). :func:`check_reachable` opens one TCP
connection per host with a short timeout first. It sends no request, so it needs no credentials.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

from esbench.exceptions import ConnectionFailed
from esbench.results.metrics_store import MetricsStoreSettings

#: Seconds for the TCP connection to a metrics store host.
CONNECT_TIMEOUT = 5.0


def check_reachable(settings: MetricsStoreSettings | str, *, timeout: float = CONNECT_TIMEOUT) -> None:
    """Return when at least one host of the metrics store accepts a TCP connection.

    Args:
        settings: the metrics store, or its URL (:meth:`MetricsStoreSettings.from_env`); its
            ``hosts`` are URLs without credentials, and a URL without a port means 80 for http and
            443 for https.
        timeout: seconds per host.

    Raises:
        ConfigError: a malformed URL.
        ConnectionFailed: no host accepted a connection; the message names ``--metrics-store``,
            each host with its reason, and the time limit.
    """
    if isinstance(settings, str):
        resolved = MetricsStoreSettings.from_env(settings)
        if resolved is None:
            return
        settings = resolved
    failures = []
    started = time.monotonic()
    for url in settings.hosts:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            with socket.create_connection((parts.hostname or "", port), timeout=timeout):
                return
        except OSError as exc:
            reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
            failures.append(f"{parts.hostname}:{port} ({reason})")
    raise ConnectionFailed(
        f"Nothing answers at the metrics store --metrics-store={settings.display_url}: "
        f"{', '.join(failures)}; tried for {time.monotonic() - started:.1f} s, at most {timeout:g} s per "
        f"host. Start that cluster or fix the URL (or leave --metrics-store out and export later with "
        f"'esbench export')."
    )
