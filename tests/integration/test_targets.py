"""``esbench race`` against OpenSearch and against a secured (TLS + basic auth) Elasticsearch node,
both session clusters (``clusters.py``): races complete, the product and
version are stored, plugin runners' ``es`` client works on both, a wrong CA or password is a
one-paragraph error, and no credential reaches any output, file or the results store."""

from __future__ import annotations

import json
import ssl
import subprocess
import urllib.error
import urllib.request
from base64 import b64encode
from pathlib import Path

import pytest
from clusters import SecuredCluster
from harness import esbench, race_dir, results

from esbench.provision.security import create_security_material
from esbench.results.store import ResultsStore

CLIENT_API_TRACK = Path(__file__).resolve().parent.parent / "resources" / "targets" / "client-api"


def get_json(
    url: str, *, ca: Path | None = None, auth: tuple[str, str] | None = None, method: str = "GET"
) -> dict:
    headers = (
        {"authorization": "Basic " + b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()} if auth else {}
    )
    context = ssl.create_default_context(cafile=str(ca)) if ca else None
    with urllib.request.urlopen(
        urllib.request.Request(url, headers=headers, method=method), context=context, timeout=30
    ) as r:
        return json.loads(r.read())


def secured_env(secured: SecuredCluster, password: str | None = None) -> dict[str, str]:
    return {"ESBENCH_USERNAME": secured.user, "ESBENCH_PASSWORD": password or secured.password}


# ------------------------------------------------------------------------------------ OpenSearch


def test_eventdata_race_against_opensearch_stores_flavor_and_indexes(opensearch_hosts):
    proc = esbench("race", "--track=eventdata", "--test-mode", f"--target-hosts={','.join(opensearch_hosts)}")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    data = results(proc)
    assert data["cluster_flavor"] == "opensearch"
    assert data["cluster_version"].startswith("2.")
    assert data["status"] == "completed"
    bulk = next(t for t in data["tasks"] if t["operation_type"] == "bulk")
    assert bulk["error_count"] == 0 and bulk["sample_count"] > 0
    assert "Cluster:        OpenSearch 2." in proc.stdout
    # The documents really are in OpenSearch (the test-mode corpus has 1000 documents). The default
    # challenge ends without a refresh, so refresh before counting: _cat/count sees refreshed documents
    # only (without it the count was 796 or 903 in some runs).
    get_json(f"http://{opensearch_hosts[0]}/eventdata/_refresh", method="POST")
    count = get_json(f"http://{opensearch_hosts[0]}/_cat/count/eventdata?format=json")
    assert int(count[0]["count"]) == 1000
    stored = ResultsStore.open().get(data["race_id"])
    assert stored.cluster_flavor == "opensearch"


def test_plugin_runner_client_api_works_against_opensearch(opensearch_hosts):
    proc = esbench(
        "race", f"--track-path={CLIENT_API_TRACK}", "--test-mode", f"--target-hosts={opensearch_hosts[0]}"
    )
    assert proc.returncode == 0, proc.stderr
    tasks = {t["task"]: t for t in results(proc)["tasks"]}
    # success is False (an error) if a runner's search or count saw a wrong number of documents.
    assert tasks["setup-probe"]["error_count"] == 0
    assert tasks["count-probe"]["error_count"] == 0
    assert tasks["count-probe"]["sample_count"] >= 2  # both clients ran (test mode caps iterations)


# ------------------------------------------------------------------------------ secured cluster


def test_race_against_tls_node_with_ca_and_env_credentials(secured_es):
    proc = esbench(
        "race",
        f"--track-path={CLIENT_API_TRACK}",
        "--test-mode",
        f"--target-hosts={secured_es.hosts[0]}",
        f"--client-options=use_ssl:true,ca_certs:'{secured_es.ca_cert}'",
        env=secured_env(secured_es),
    )
    assert proc.returncode == 0, proc.stderr
    data = results(proc)
    assert data["cluster_flavor"] == "elasticsearch"
    errors = {t["task"]: t["error_count"] for t in data["tasks"]}
    assert errors == {"delete-probe-index": 0, "setup-probe": 0, "count-probe": 0}
    assert_no_credential(secured_es.password, proc, race_dir(proc))


def test_race_against_tls_node_with_credentials_in_client_options(secured_es):
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        f"--target-hosts={secured_es.hosts[0]}",
        f"--client-options=use_ssl:true,verify_certs:true,ca_certs:'{secured_es.ca_cert}',"
        f"basic_auth_user:'{secured_es.user}',basic_auth_password:'{secured_es.password}'",
    )
    assert proc.returncode == 0, proc.stderr
    # Refreshed first, as above: the default challenge ends without a refresh.
    secured = {"ca": secured_es.ca_cert, "auth": (secured_es.user, secured_es.password)}
    get_json(f"https://{secured_es.hosts[0]}/eventdata/_refresh", method="POST", **secured)
    count = get_json(
        f"https://{secured_es.hosts[0]}/_cat/count/eventdata?format=json",
        ca=secured_es.ca_cert,
        auth=(secured_es.user, secured_es.password),
    )
    assert int(count[0]["count"]) == 1000
    assert_no_credential(secured_es.password, proc, race_dir(proc))


def test_wrong_ca_is_a_one_paragraph_error(secured_es, tmp_path):
    other_ca = create_security_material(tmp_path / "other").ca_cert  # a valid CA that did not sign the node
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        f"--target-hosts={secured_es.hosts[0]}",
        f"--client-options=use_ssl:true,ca_certs:'{other_ca}'",
        env=secured_env(secured_es),
    )
    assert proc.returncode == 64
    assert "Traceback" not in proc.stderr
    error = [ln for ln in proc.stderr.splitlines() if ln.startswith("[ERROR]")]
    assert len(error) == 1
    assert "could not be verified" in error[0] and "ca_certs" in error[0]
    assert "CERTIFICATE_VERIFY_FAILED" in error[0]
    assert secured_es.password not in proc.stderr + proc.stdout


def test_wrong_password_is_a_one_paragraph_error(secured_es):
    wrong = "not-the-password-9f1c"
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        f"--target-hosts={secured_es.hosts[0]}",
        f"--client-options=use_ssl:true,ca_certs:'{secured_es.ca_cert}'",
        env=secured_env(secured_es, password=wrong),
    )
    assert proc.returncode == 64
    assert "Traceback" not in proc.stderr
    error = [ln for ln in proc.stderr.splitlines() if ln.startswith("[ERROR]")]
    assert len(error) == 1 and "rejected the credentials (HTTP 401)" in error[0]
    assert wrong not in proc.stderr + proc.stdout


def test_plain_http_to_the_tls_node_says_to_use_ssl(secured_es):
    proc = esbench("race", "--track=eventdata", "--test-mode", f"--target-hosts={secured_es.hosts[0]}")
    assert proc.returncode == 64
    assert "it may only speak HTTPS" in proc.stderr and "use_ssl:true" in proc.stderr


def assert_no_credential(password: str, proc: subprocess.CompletedProcess[str], directory: Path) -> None:
    """The password is in no output, no file of the race directory and not in the results store."""
    assert password not in proc.stdout
    assert password not in proc.stderr
    files = [p for p in directory.rglob("*") if p.is_file()]
    assert any(p.name == "results.json" for p in files)
    for path in files:
        assert password.encode() not in path.read_bytes(), path
    store = ResultsStore.open().path
    for path in store.parent.glob(store.name + "*"):  # the database, its WAL and shared memory
        assert password.encode() not in path.read_bytes(), path


# --------------------------------------------------------------- provisioning through the race


@pytest.mark.slow
def test_from_distribution_race_with_x_pack_security_car(tmp_path):
    """esbench provisions a secured node itself and races it with verification on."""
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        "--car=defaults,x-pack-security",
        "--car-params=heap_size:512m",
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "The cluster speaks HTTPS with basic auth; CA certificate: " in proc.stderr
    data = results(proc)
    assert data["car"] == "defaults+x-pack-security" and data["status"] == "completed"
    assert data["cluster_flavor"] == "elasticsearch"
    assert next(t for t in data["tasks"] if t["operation_type"] == "bulk")["error_count"] == 0


def test_start_secured_node_prints_ca_and_password_file_never_the_password(secured_es):
    """``esbench start --car=defaults,x-pack-security`` (the session's secured node, clusters.py)
    prints where the CA and the password are; the node answers only with that CA and password.
    That ``esbench stop`` deletes both is checked when the session stops it."""
    started = secured_es.started
    assert set(started.fields) == {"installation-id", "hosts", "ca-certs", "user", "password-file"}
    ca, password_file = Path(started.fields["ca-certs"]), Path(started.fields["password-file"])
    password = password_file.read_text().strip()
    assert oct(password_file.stat().st_mode & 0o777) == "0o600"
    assert password not in started.stdout + started.stderr
    host = started.fields["hosts"]
    health = get_json(f"https://{host}/_cluster/health", ca=ca, auth=(started.fields["user"], password))
    assert health["status"] == "green"
    with pytest.raises(urllib.error.HTTPError) as rejected:
        get_json(f"https://{host}/_cluster/health", ca=ca, auth=(started.fields["user"], "wrong"))
    assert rejected.value.code == 401
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        get_json(f"https://{host}/_cluster/health")  # the system CAs do not know the generated CA
