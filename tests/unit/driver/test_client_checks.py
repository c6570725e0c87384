"""--client-options values that cannot work are one message naming the option when parsed, not a
traceback from elastic-transport or ssl when the first client is created (issue 26)."""

from __future__ import annotations

from pathlib import Path

import certifi
import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.driver.transport.client import parse_client_options
from esbench.exceptions import ConfigError
from esbench.provision.security import create_security_material

ISSUE_INPUT = "use_ssl:true,ca_certs:'/path/that/does/not/exist.pem'"


def test_the_issue_input_is_one_paragraph_without_traceback(tmp_path: Path) -> None:
    # Before the fix: "ValueError: ca_certs parameter is not a path" with a traceback.
    result = CliRunner().invoke(
        main, ["race", "--track=any", "--target-hosts=127.0.0.1:9", f"--client-options={ISSUE_INPUT}"]
    )
    assert result.exit_code == 64, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    line = result.output.strip()
    assert "\n" not in line and "--client-options" in line and "ca_certs" in line
    assert "/path/that/does/not/exist.pem" in line and "does not exist" in line


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (ISSUE_INPUT, "the ca_certs file '/path/that/does/not/exist.pem' does not exist"),
        ("client_cert:'/nonexistent/c.pem'", "the client_cert file '/nonexistent/c.pem' does not exist"),
        ("ca_certs:''", "'ca_certs' is empty"),
        ("client_key:'/etc/hostname'", "client_key is given without client_cert"),
        ("timeout:0", "'timeout' must be a number of seconds above 0 (or None for no timeout), got 0"),
        ("timeout:-5", "above 0 (or None for no timeout), got -5"),
        ("timeout:true", "'timeout' must be a number of seconds, or None for no timeout, got True"),
        ("max_connections:0", "'max_connections' must be 1 or more, got 0"),
        ("max_connections:2.5", "'max_connections' must be a number"),
        ("verify_certs:sometimes", "'verify_certs' must be true or false"),
    ],
)
def test_bad_values_name_the_option(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_client_options(text)
    assert fragment in str(caught.value)
    assert "--client-options" in str(caught.value)


def test_files_that_are_not_pem_are_refused(tmp_path: Path) -> None:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match=r"ca_certs '.*notes\.txt' holds no CA certificate"):
        parse_client_options(f"ca_certs:'{text_file}'")
    with pytest.raises(ConfigError, match=r"client_cert '.*notes\.txt' cannot be loaded"):
        parse_client_options(f"client_cert:'{text_file}'")
    with pytest.raises(ConfigError, match="is a directory"):
        parse_client_options(f"client_cert:'{tmp_path}'")


def test_a_real_ca_bundle_and_a_ca_directory_are_accepted(tmp_path: Path) -> None:
    bundle = certifi.where()
    assert parse_client_options(f"use_ssl:true,ca_certs:'{bundle}'").ca_certs == bundle
    # Rally loads ca_certs also with verify_certs:false (esrally/client/factory.py): accepted.
    options = parse_client_options(f"use_ssl:true,verify_certs:false,ca_certs:'{bundle}'")
    assert not options.verify_certs
    assert parse_client_options(f"ca_certs:'{tmp_path}'").ca_certs == str(tmp_path)


def test_mutual_tls_files_must_match(tmp_path: Path) -> None:
    tls = create_security_material(tmp_path / "tls")  # a CA and a certificate with its key
    cert, key = tls.directory / "node.crt", tls.directory / "node.key"
    options = parse_client_options(
        f"use_ssl:true,ca_certs:'{tls.ca_cert}',client_cert:'{cert}',client_key:'{key}'"
    )
    assert options.client_cert == str(cert) and options.client_key == str(key)
    wrong_key = tls.directory / "ca.key"
    with pytest.raises(ConfigError, match="cannot be loaded") as caught:
        parse_client_options(f"client_cert:'{cert}',client_key:'{wrong_key}'")
    assert "client_key" in str(caught.value) and "must match" in str(caught.value)
