"""The race log: credentials never written, several processes appending whole lines, levels restored."""

from __future__ import annotations

import logging
import multiprocessing
from pathlib import Path

import pytest

from esbench import racelog
from esbench.driver.settings import ClientOptions
from esbench.driver.transport.client import Credentials, parse_client_options, race_secrets


def _secrets(
    target_hosts: tuple[str, ...] = (), client_options: ClientOptions | None = None
) -> tuple[str, ...]:
    return race_secrets(target_hosts, client_options or ClientOptions())


def test_redact_masks_secrets_auth_headers_and_url_userinfo() -> None:
    secrets = racelog.secrets_of(Credentials(username="elastic", password="s3cr3t-pw"))
    text = (
        "login elastic/s3cr3t-pw to https://elastic:s3cr3t-pw@127.0.0.1:9200 "
        "with {'authorization': 'Basic ZWxhc3RpYzpzM2NyM3QtcHc='} and Authorization: Bearer abc.def"
    )
    out = racelog.redact(text, secrets)
    assert "s3cr3t-pw" not in out
    assert "ZWxhc3RpYzpzM2NyM3QtcHc=" not in out
    assert "abc.def" not in out
    assert "https://*****@127.0.0.1:9200" in out
    assert "login elastic/*****" in out


def test_api_key_halves_and_encoded_form_are_secrets() -> None:
    secrets = racelog.secrets_of(Credentials(api_key="keyid:keysecret"))
    assert "keyid:keysecret" in secrets and "keysecret" in secrets
    assert racelog.redact("x keysecret y", secrets) == "x ***** y"


def test_short_secrets_are_masked_as_whole_words_only() -> None:
    assert racelog.redact("pw is ab; about tab", ["ab"]) == "pw is *****; about tab"


def test_race_secrets_come_from_options_env_and_host_urls(monkeypatch) -> None:
    monkeypatch.setenv("ESBENCH_PASSWORD", "from-the-env")
    assert "from-the-env" in _secrets()
    opts = parse_client_options("basic_auth_user:'u',basic_auth_password:'from-options'")
    assert "from-options" in _secrets(client_options=opts)
    monkeypatch.delenv("ESBENCH_PASSWORD")
    hosts = ("https://u:in-the-url@127.0.0.1:9200",)
    assert "in-the-url" in _secrets(target_hosts=hosts)


def test_race_log_captures_esbench_and_plugin_loggers_and_never_a_password(tmp_path: Path) -> None:
    opts = parse_client_options("basic_auth_user:'u',basic_auth_password:'hunter2-secret'")
    log = racelog.start_race_log(tmp_path, _secrets(client_options=opts))
    try:
        assert racelog.active_log_file() == str(tmp_path / "esbench.log")
        logging.getLogger("esbench.driver").warning("connecting with password hunter2-secret")
        logging.getLogger("track").info("plugin says hello")  # a plugin's own logger
        logging.getLogger("esbench.x").debug("not at INFO")
    finally:
        log.close()
    text = (tmp_path / "esbench.log").read_text()
    assert "connecting with password *****" in text
    assert "hunter2-secret" not in text
    assert "INFO track: plugin says hello" in text
    assert "not at INFO" not in text
    assert racelog.active_log_file() is None
    logging.getLogger("esbench.driver").warning("after close")
    assert "after close" not in (tmp_path / "esbench.log").read_text()


def test_levels_are_restored_and_the_console_is_not_made_noisier(tmp_path: Path) -> None:
    root = logging.getLogger()
    console = logging.StreamHandler()
    root.addHandler(console)
    old = root.level
    root.setLevel(logging.WARNING)
    try:
        log = racelog.start_race_log(tmp_path, _secrets())
        assert root.level == logging.INFO
        assert console.level == logging.WARNING  # the console keeps showing warnings only
        log.close()
        assert root.level == logging.WARNING
        assert console.level == logging.NOTSET
    finally:
        root.removeHandler(console)
        root.setLevel(old)


def test_discard_removes_the_file(tmp_path: Path) -> None:
    log = racelog.start_race_log(tmp_path, _secrets())
    log.discard()
    assert not (tmp_path / "esbench.log").exists()


def _worker(path: str, worker: int, lines: int) -> None:
    racelog.attach_worker_log(path, Credentials(username="u", password="worker-secret"))
    logger = logging.getLogger(f"plugin.worker{worker}")
    for i in range(lines):
        # long enough that a torn write would show; includes the password to check redaction
        logger.warning("worker %d line %d %s worker-secret end", worker, i, "x" * 300)


def test_worker_processes_append_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "esbench.log"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(str(path), w, 300)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 900
    seen = set()
    for line in lines:
        assert line.endswith(" ***** end"), line[:120]
        head = line.split(" x", 1)[0]
        seen.add(head.split(": ", 1)[1])
    assert len(seen) == 900
    assert all("worker-secret" not in line for line in lines)


@pytest.mark.parametrize("path", [None, ""])
def test_workers_without_a_race_log_configure_nothing(path) -> None:
    before = list(logging.getLogger().handlers)
    racelog.attach_worker_log(path)
    assert logging.getLogger().handlers == before


def test_an_unwritable_race_directory_is_a_warning_not_a_failure(tmp_path: Path, caplog) -> None:
    missing = tmp_path / "gone"  # the directory does not exist: os.open fails
    with caplog.at_level(logging.WARNING, logger="esbench.racelog"):
        log = racelog.start_race_log(missing, _secrets())
    assert "cannot write the race log" in caplog.text
    assert racelog.active_log_file() is None
    log.finish(None)
    log.discard()
