"""X.509 material of a secured installation: a self-signed CA and one node certificate signed by it.

Apart from :mod:`esbench.provision.security` so that only provisioning a secured node imports the
``cryptography`` library: ~7.4 MiB of RSS, which every ``esbench race`` process held before for
nothing, a race against an existing cluster included (issue 25).

Source: RFC 5280 (basic constraints, key usage, subject and authority key identifiers, subject
alternative names); Elasticsearch "Security settings" for what a node's HTTP and transport TLS
need (a certificate with ``serverAuth`` and ``clientAuth``, for the address the node binds to).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class CertificatePems:
    """PEM bytes of the CA's and the node's certificates and (PKCS#8, unencrypted) keys."""

    ca_cert: bytes
    ca_key: bytes
    node_cert: bytes
    node_key: bytes


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem_key(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def create_certificates(validity: dt.timedelta) -> CertificatePems:
    """A fresh CA (RSA 2048) and a node certificate it signs for ``IP:127.0.0.1`` and
    ``DNS:localhost``, both valid from 5 minutes ago for ``validity``.

    Raises:
        cryptography's errors, which mean a broken ``cryptography`` installation.
    """
    now = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)  # tolerate small clock differences
    ca_key = _key()
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("esbench CA"))
        .issuer_name(_name("esbench CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + validity)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    node_key = _key()
    node_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("esbench node"))
        .issuer_name(ca_cert.subject)
        .public_key(node_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + validity)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    return CertificatePems(
        ca_cert=ca_cert.public_bytes(pem),
        ca_key=_pem_key(ca_key),
        node_cert=node_cert.public_bytes(pem),
        node_key=_pem_key(node_key),
    )
