"""Race control's target helpers: client options for a secured provisioned cluster, TLS messages,
and the per-flavor default of --distribution-version."""

from __future__ import annotations

import ssl
from pathlib import Path

import elastic_transport

from esbench.cli._provision_options import provision_settings
from esbench.driver.transport.client import ClientOptions
from esbench.provision import DEFAULT_DISTRIBUTION_VERSION
from esbench.provision.security import create_security_material
from esbench.targets import error_text, secured_client_options, transport_failure_message


def test_secured_client_options_use_the_installation_ca_and_user(tmp_path: Path) -> None:
    material = create_security_material(tmp_path / "security")
    options = secured_client_options(ClientOptions(timeout=30), material)
    assert options.use_ssl and options.verify_certs
    assert options.ca_certs == str(material.ca_cert)
    assert options.basic_auth_user == "esbench"
    assert options.basic_auth_password == material.password()
    assert material.password() not in repr(options) and material.password() not in str(options.describe())
    assert options.timeout == 30


def test_secured_client_options_keep_what_the_user_gave(tmp_path: Path) -> None:
    material = create_security_material(tmp_path / "security")
    given = ClientOptions(ca_certs="/my/ca.pem", basic_auth_user="me", basic_auth_password="mine")
    options = secured_client_options(given, material)
    assert (options.ca_certs, options.basic_auth_user, options.basic_auth_password) == (
        "/my/ca.pem",
        "me",
        "mine",
    )
    assert secured_client_options(ClientOptions(api_key="id:key"), material).basic_auth_user is None


def test_verification_failure_names_the_ca_and_the_option() -> None:
    error = elastic_transport.TlsError(
        "TLS error connecting to 127.0.0.1:9200: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"
    )
    assert error_text(error).startswith("TLS error connecting")
    message = transport_failure_message(
        "127.0.0.1:9200", error, ClientOptions(use_ssl=True, ca_certs="/x/ca.crt")
    )
    assert message is not None
    assert "could not be verified with the CA in ca_certs (/x/ca.crt)" in message
    assert "CERTIFICATE_VERIFY_FAILED" in message and "\n" not in message
    without_ca = transport_failure_message("h:1", error, ClientOptions(use_ssl=True))
    assert without_ca is not None and "system's trusted CAs" in without_ca


def test_other_tls_errors_and_plain_http_to_https() -> None:
    wrong_version = elastic_transport.TlsError(
        "TLS error connecting to h:1: [SSL: WRONG_VERSION_NUMBER] wrong version"
    )
    wrong_version.__cause__ = ssl.SSLError("wrong version number")
    message = transport_failure_message("h:1", wrong_version, ClientOptions(use_ssl=True))
    assert message is not None and "drop use_ssl" in message
    lost = elastic_transport.ConnectionError("Connection lost: the server closed the connection")
    plain = transport_failure_message("h:1", lost, ClientOptions())
    assert plain is not None and "may only speak HTTPS" in plain
    assert transport_failure_message("h:1", lost, ClientOptions(use_ssl=True)) is None
    refused = elastic_transport.ConnectionError("Cannot connect to h:1: Connection refused")
    assert transport_failure_message("h:1", refused, ClientOptions()) is None


def test_distribution_version_defaults_per_flavor() -> None:
    common = dict(
        distribution_version=None,
        distribution_repository="maven",
        distribution_path=None,
        car="defaults",
        car_params="",
        nodes=1,
        preserve_install=False,
        run_as_user=None,
    )
    assert provision_settings(**common).distribution_version == DEFAULT_DISTRIBUTION_VERSION
    opensearch = provision_settings(**common, distribution_flavor="opensearch")
    assert (opensearch.distribution_flavor, opensearch.distribution_version) == ("opensearch", "2.18.0")
    assert (
        provision_settings(
            **{**common, "distribution_version": "2.17.1"}, distribution_flavor="opensearch"
        ).distribution_version
        == "2.17.1"
    )
