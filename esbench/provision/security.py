"""Secured Elasticsearch nodes: TLS on HTTP and transport plus basic auth (``xpack.security``).

A car with ``security: true`` (the built-in mixin ``x-pack-security``, named like Rally's
rally-teams mixin) makes :func:`create_security_material` run once per installation. It writes, to
``<installation>/security/`` (mode 700, the account that runs esbench only):

* ``ca.crt`` / ``ca.key``: a fresh self-signed CA (RSA 2048, valid 2 years); ``ca.crt`` is what a
  client verifies the nodes with (``--client-options=ca_certs:<path>``);
* ``node.crt`` / ``node.key``: one certificate for every node of the installation, signed by that
  CA, for ``IP:127.0.0.1`` and ``DNS:localhost`` (the nodes bind to loopback only);
* ``users`` / ``users_roles``: Elasticsearch's file realm with one ``superuser``
  (default ``esbench``) whose password is stored only as a salted PBKDF2 hash;
* ``password``: that user's generated password (mode 600), so that ``esbench race`` can use it
  for a cluster it provisioned and a user can read it for one started with ``esbench start``.

Certificates come from the ``cryptography`` library (:mod:`.certificates`, RFC 5280); no CA or
password leaves the installation directory, which ``esbench stop`` deletes.

Sources: Elasticsearch "Security settings" (``xpack.security.http.ssl.*``,
``xpack.security.transport.ssl.*``; key and certificate paths are resolved against the config
directory, which the node may read), "File-based user authentication" (``users``:
``name:hash`` lines, ``users_roles``: ``role:user,...`` lines) and the hash format of
``org.elasticsearch.xpack.core.security.authc.support.Hasher``: ``{PBKDF2}<cost>$<base64 salt of
32 bytes>$<base64 of PBKDF2WithHmacSHA512, 256-bit key>``, recognised by its prefix whatever
``xpack.security.authc.password_hashing.algorithm`` says.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import os
import secrets
import shutil
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from esbench.exceptions import ProvisionError

#: Below the installation root.
SECURITY_DIR = "security"
#: Below each node's config directory (key and certificate must live inside it).
CERTS_DIR = "certs"
DEFAULT_USER = "esbench"
#: Elasticsearch's default PBKDF2 cost (``Hasher.PBKDF2``).
PBKDF2_COST = 10_000
_VALIDITY = dt.timedelta(days=730)


@dataclass(frozen=True, kw_only=True)
class SecurityMaterial:
    """The files of :func:`create_security_material` (see the module docstring).

    Attributes:
        directory: ``<installation>/security``.
        user: the file-realm superuser's name.
    """

    directory: Path
    user: str = DEFAULT_USER

    @property
    def ca_cert(self) -> Path:
        """The CA certificate (PEM) that clients verify the nodes with."""
        return self.directory / "ca.crt"

    @property
    def password_file(self) -> Path:
        """The generated password of :attr:`user` (mode 600)."""
        return self.directory / "password"

    def password(self) -> str:
        """The password of :attr:`user`; never print or log it.

        Raises:
            ProvisionError: the password file is gone or unreadable.
        """
        try:
            return self.password_file.read_text(encoding="utf-8").strip()
        except OSError as e:
            raise ProvisionError(
                f"Cannot read the password file {self.password_file} of this secured installation: "
                f"{e.strerror}. Re-create the installation."
            ) from e

    def to_dict(self) -> dict[str, str]:
        """The JSON form kept in the installation state (paths and user name only)."""
        return {"directory": str(self.directory), "user": self.user}

    @classmethod
    def from_dict(cls, data: Mapping[str, str] | None) -> SecurityMaterial | None:
        """Inverse of :meth:`to_dict`; None for an installation without security."""
        if not data:
            return None
        return cls(directory=Path(data["directory"]), user=str(data.get("user", DEFAULT_USER)))


def pbkdf2_hash(password: str, *, cost: int = PBKDF2_COST, salt: bytes | None = None) -> str:
    """The file-realm hash of ``password`` in Elasticsearch's ``{PBKDF2}`` format (module docstring)."""
    salt = secrets.token_bytes(32) if salt is None else salt
    key = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, cost, dklen=32)
    return f"{{PBKDF2}}{cost}${base64.b64encode(salt).decode()}${base64.b64encode(key).decode()}"


def _write(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def create_security_material(directory: Path, *, user: str = DEFAULT_USER) -> SecurityMaterial:
    """Generate the CA, the node certificate, the user and its password into ``directory``.

    Raises:
        ProvisionError: ``directory`` exists already (never overwrite another installation's CA).
    """
    try:
        directory.mkdir(mode=0o700, parents=False)
    except FileExistsError:
        raise ProvisionError(f"{directory} exists already; refusing to overwrite its certificates.") from None
    # Here, not at the top: cryptography is ~7.4 MiB that only a secured installation needs.
    from esbench.provision.certificates import create_certificates

    pems = create_certificates(_VALIDITY)
    _write(directory / "ca.crt", pems.ca_cert, 0o644)
    _write(directory / "ca.key", pems.ca_key, 0o600)
    _write(directory / "node.crt", pems.node_cert, 0o644)
    _write(directory / "node.key", pems.node_key, 0o600)
    password = secrets.token_urlsafe(24)
    _write(directory / "password", password.encode("utf-8") + b"\n", 0o600)
    _write(directory / "users", f"{user}:{pbkdf2_hash(password)}\n".encode(), 0o600)
    _write(directory / "users_roles", f"superuser:{user}\n".encode(), 0o600)
    return SecurityMaterial(directory=directory, user=user)


def node_security_settings() -> dict[str, object]:
    """The ``elasticsearch.yml`` settings of a secured node (paths relative to its config dir).

    Transport TLS is on too: Elasticsearch requires it for a multi-node cluster with security.
    """
    settings: dict[str, object] = {"xpack.security.enabled": True}
    for layer in ("http", "transport"):
        prefix = f"xpack.security.{layer}.ssl"
        settings.update(
            {
                f"{prefix}.enabled": True,
                f"{prefix}.key": f"{CERTS_DIR}/node.key",
                f"{prefix}.certificate": f"{CERTS_DIR}/node.crt",
                f"{prefix}.certificate_authorities": [f"{CERTS_DIR}/ca.crt"],
            }
        )
    # Node certificates name 127.0.0.1, and every node shares one: hostname checks add nothing.
    settings["xpack.security.transport.ssl.verification_mode"] = "certificate"
    return settings


class HealthAccess(TypedDict, total=False):
    """Keyword arguments of :func:`esbench.provision.launcher.cluster_health` for a secured node."""

    ssl_context: ssl.SSLContext
    headers: dict[str, str]


def health_access(material: SecurityMaterial | None) -> HealthAccess:
    """Keyword arguments of :func:`esbench.provision.launcher.cluster_health` for a node secured
    with ``material``: an SSL context verifying with its CA, and the user's ``authorization``
    header (empty for an unsecured node)."""
    if material is None:
        return {}
    token = base64.b64encode(f"{material.user}:{material.password()}".encode()).decode("ascii")
    return {
        "ssl_context": ssl.create_default_context(cafile=str(material.ca_cert)),
        "headers": {"authorization": f"Basic {token}"},
    }


def install_node_files(material: SecurityMaterial, config_dir: Path) -> None:
    """Copy certificates and the file realm into a node's config directory (before each start)."""
    certs = config_dir / CERTS_DIR
    certs.mkdir(exist_ok=True)
    for source, target in (
        ("ca.crt", certs / "ca.crt"),
        ("node.crt", certs / "node.crt"),
        ("node.key", certs / "node.key"),
        ("users", config_dir / "users"),
        ("users_roles", config_dir / "users_roles"),
    ):
        shutil.copyfile(material.directory / source, target)
        # Only the node's account (which gets the config dir) may read the key and the hashes.
        target.chmod(0o644 if source.endswith(".crt") else 0o600)
