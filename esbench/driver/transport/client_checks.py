"""Checks of ``--client-options`` values that the client libraries would otherwise reject late.

elastic-transport raises a bare ``ValueError("ca_certs parameter is not a path")`` when the first
client is created, after the track and corpora were prepared, and Python's ``ssl`` module raises
``FileNotFoundError``/``SSLError`` without naming the option. :func:`check_client_options` runs
when the options are parsed, so that every such mistake is one message naming the option.

The rules follow the meaning of the options in Rally's docs (command line reference,
``--client-options``) and ``esrally/client/factory.py``: ``ca_certs`` is a CA bundle file or a
directory of hashed CA files, loaded also with ``verify_certs:false`` (as Rally loads it, so a
missing file is an error there too); ``client_cert``/``client_key`` are PEM files for mutual TLS,
and a key without a certificate is refused. A certificate without ``client_key`` is accepted when
the certificate file also holds the key (Python's ``load_cert_chain``), which Rally does not allow.
"""

from __future__ import annotations

import os
import ssl
from pathlib import Path

from esbench.driver.settings import ClientOptions
from esbench.exceptions import ConfigError

_OPTION = "--client-options"


def _existing(key: str, value: str, *, dir_ok: bool) -> Path:
    if not value.strip():
        raise ConfigError(
            f"{_OPTION}: '{key}' is empty. Give the path of a PEM file, e.g. {key}:'/path/ca.crt'."
        )
    path = Path(value).expanduser()
    if not path.exists():
        hint = (
            " (for a cluster esbench started: <installation>/config/certs/ca.crt)"
            if key == "ca_certs"
            else ""
        )
        raise ConfigError(
            f"{_OPTION}: the {key} file '{path}' does not exist. Give the path of an existing PEM "
            f"file{hint}, or leave {key} out."
        )
    if path.is_dir() and not dir_ok:
        raise ConfigError(f"{_OPTION}: {key} '{path}' is a directory; give the path of a PEM file.")
    if not os.access(path, os.R_OK):
        raise ConfigError(f"{_OPTION}: the {key} file '{path}' is not readable by this user.")
    return path


def check_client_options(options: ClientOptions) -> None:
    """Reject option values that cannot work; nothing is sent over the network.

    Args:
        options: options parsed from ``--client-options`` (before esbench adds what it detects).

    Raises:
        esbench.exceptions.ConfigError: a missing, unreadable or unloadable ``ca_certs``,
            ``client_cert`` or ``client_key``; ``client_key`` without ``client_cert`` (Rally refuses
            it too); a ``timeout`` not above 0 s; a
            ``max_connections`` below 1. The message names the option and how to fix it.
    """
    if options.timeout is not None and not options.timeout > 0:
        raise ConfigError(
            f"{_OPTION}: 'timeout' must be a number of seconds above 0 (or None for no timeout), "
            f"got {options.timeout:g}."
        )
    if options.max_connections is not None and options.max_connections < 1:
        raise ConfigError(f"{_OPTION}: 'max_connections' must be 1 or more, got {options.max_connections}.")
    if options.client_key is not None and options.client_cert is None:
        raise ConfigError(
            f"{_OPTION}: client_key is given without client_cert. Give both for mutual TLS "
            f"(client_cert:'/path/client.crt',client_key:'/path/client.key'), or neither."
        )
    context = ssl.create_default_context()
    if options.ca_certs is not None:
        ca = _existing("ca_certs", options.ca_certs, dir_ok=True)
        try:
            if ca.is_dir():
                context.load_verify_locations(capath=str(ca))
            else:
                context.load_verify_locations(cafile=str(ca))
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(
                f"{_OPTION}: ca_certs '{ca}' holds no CA certificate Python can load ({exc}). Give a "
                f"PEM file that starts with '-----BEGIN CERTIFICATE-----'."
            ) from None
    if options.client_cert is not None:
        cert = _existing("client_cert", options.client_cert, dir_ok=False)
        key = _existing("client_key", options.client_key, dir_ok=False) if options.client_key else None
        try:
            context.load_cert_chain(str(cert), str(key) if key else None)
        except (OSError, ssl.SSLError) as exc:
            what = f"client_cert '{cert}'" + (f" with client_key '{key}'" if key else "")
            raise ConfigError(
                f"{_OPTION}: {what} cannot be loaded ({exc}). Give the PEM certificate and its "
                f"unencrypted private key (in client_cert, or in client_key); they must match."
            ) from None
