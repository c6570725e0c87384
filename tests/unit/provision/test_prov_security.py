"""Security material of the x-pack-security car: CA and node certificate, file realm, settings."""

from __future__ import annotations

import base64
import hashlib
import re
import stat
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from provfakes import STOCK_JVM_OPTIONS

from esbench.exceptions import ProvisionError
from esbench.provision.cars import resolve_car
from esbench.provision.installation import NodeState
from esbench.provision.nodeconfig import write_node_config
from esbench.provision.security import (
    SecurityMaterial,
    create_security_material,
    health_access,
    node_security_settings,
    pbkdf2_hash,
)

# Elasticsearch's Hasher.resolveFromHash/verifyPbkdf2Hash read "{PBKDF2}<cost>$" + 44 + "$" + 44 chars.
_ES_PBKDF2 = re.compile(r"^\{PBKDF2\}(\d+)\$([A-Za-z0-9+/]{43}=)\$([A-Za-z0-9+/]{43}=)$")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_pbkdf2_hash_has_elasticsearchs_layout_and_verifies() -> None:
    hashed = pbkdf2_hash("s3cret", salt=b"\x01" * 32)
    m = _ES_PBKDF2.match(hashed)
    assert m is not None, hashed
    assert m.group(1) == "10000"
    assert base64.b64decode(m.group(2)) == b"\x01" * 32
    expected = hashlib.pbkdf2_hmac("sha512", b"s3cret", b"\x01" * 32, 10000, dklen=32)
    assert base64.b64decode(m.group(3)) == expected
    assert pbkdf2_hash("s3cret") != pbkdf2_hash("s3cret")  # a fresh salt each time


def test_material_files_modes_and_certificate_chain(tmp_path: Path) -> None:
    material = create_security_material(tmp_path / "security")
    d = material.directory
    assert mode(d) == 0o700
    for secret in ("ca.key", "node.key", "password", "users", "users_roles"):
        assert mode(d / secret) == 0o600, secret
    ca = x509.load_pem_x509_certificate((d / "ca.crt").read_bytes())
    node = x509.load_pem_x509_certificate((d / "node.crt").read_bytes())
    node.verify_directly_issued_by(ca)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    san = node.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(ip) for ip in san.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert san.get_values_for_type(x509.DNSName) == ["localhost"]
    # The users file holds the hash of exactly the password in the password file.
    password = material.password()
    assert len(password) >= 24
    user, hashed = (d / "users").read_text().strip().split(":", 1)
    assert user == "esbench" and password not in hashed
    salt = base64.b64decode(_ES_PBKDF2.match(hashed).group(2))
    assert hashed == pbkdf2_hash(password, salt=salt)
    assert (d / "users_roles").read_text() == "superuser:esbench\n"
    with pytest.raises(ProvisionError, match="refusing to overwrite"):
        create_security_material(d)


def test_material_round_trips_through_the_installation_state(tmp_path: Path) -> None:
    material = create_security_material(tmp_path / "security")
    assert SecurityMaterial.from_dict(material.to_dict()) == material
    assert SecurityMaterial.from_dict({}) is None
    assert set(material.to_dict()) == {"directory", "user"}  # paths and a name, never the password


def test_secured_node_config_gets_settings_certificates_and_users(tmp_path: Path) -> None:
    material = create_security_material(tmp_path / "security")
    dist_config = tmp_path / "dist" / "config"
    dist_config.mkdir(parents=True)
    (dist_config / "jvm.options").write_text(STOCK_JVM_OPTIONS)
    (tmp_path / "dist" / "modules" / "x-pack-security").mkdir(parents=True)
    node = NodeState(name="node-0", dir=str(tmp_path / "node-0"), http_port=9200, transport_port=9300)
    car = resolve_car("defaults,x-pack-security")
    assert car.security is True and car.name == "defaults+x-pack-security"
    write_node_config(
        node,
        dist_config=dist_config,
        install_id="abc",
        cluster_name="esbench-abc",
        all_nodes=(node,),
        car_jvm_options=list(car.jvm_options),
        car_settings=dict(car.settings),
        security=material,
    )
    settings = yaml.safe_load((node.config_dir / "elasticsearch.yml").read_text())
    assert settings["xpack.security.enabled"] is True  # overrides the unsecured base setting
    assert settings == {**settings, **node_security_settings()}
    for relative in ("certs/ca.crt", "certs/node.crt", "certs/node.key", "users", "users_roles"):
        assert (node.config_dir / relative).is_file(), relative
    for key in ("xpack.security.http.ssl.key", "xpack.security.transport.ssl.certificate"):
        assert (node.config_dir / settings[key]).is_file()
    assert mode(node.config_dir / "certs" / "node.key") == 0o600


def test_plain_car_is_not_secured() -> None:
    assert resolve_car("defaults").security is False


def test_health_access_verifies_with_the_ca_and_authenticates(tmp_path: Path) -> None:
    assert health_access(None) == {}
    material = create_security_material(tmp_path / "security")
    access = health_access(material)
    assert access["ssl_context"].check_hostname is True
    token = access["headers"]["authorization"].removeprefix("Basic ")
    assert base64.b64decode(token).decode() == f"esbench:{material.password()}"
